// CodeMirror 6 editors for the page: YAML with the Lua of `luaScript: |` blocks highlighted as Lua,
// and problems shown where they are (a lint diagnostic plus a highlighted line, so the line is found
// at a glance and by tests: `.pg-error-line`).
import { basicSetup } from 'codemirror';
import { yamlLanguage } from '@codemirror/lang-yaml';
import { LanguageSupport, StreamLanguage } from '@codemirror/language';
import { lua } from '@codemirror/legacy-modes/mode/lua';
import { setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, RangeSetBuilder, StateEffect, StateField } from '@codemirror/state';
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view';
import { parseMixed } from '@lezer/common';
import type { Problem } from '../../src/playground/api.ts';

const luaLanguage = StreamLanguage.define(lua);

/** YAML whose `luaScript:` block scalars are parsed as Lua. */
const yamlWithLua = yamlLanguage.configure({
  wrap: parseMixed((node, input) => {
    if (node.name !== 'BlockLiteralContent') return null;
    const pair = node.node.parent?.parent;
    const key = pair?.firstChild;
    if (!key || key.name !== 'Key') return null;
    return input.read(key.from, key.to).trim() === 'luaScript' ? { parser: luaLanguage.parser } : null;
  }),
});

const setErrorLines = StateEffect.define<number[]>();
const errorLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setErrorLines)) continue;
      const builder = new RangeSetBuilder<Decoration>();
      const lines = [...new Set(effect.value)].filter((n) => n >= 1 && n <= tr.state.doc.lines).sort((a, b) => a - b);
      for (const n of lines) {
        const line = tr.state.doc.line(n);
        builder.add(line.from, line.from, Decoration.line({ class: 'pg-error-line', attributes: { 'data-error-line': String(n) } }));
      }
      value = builder.finish();
    }
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});

export function createEditor(parent: HTMLElement, label: string, text: string, onChange: () => void): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        new LanguageSupport(yamlWithLua),
        errorLines,
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange();
        }),
      ],
    }),
  });
}

export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

export function getText(view: EditorView): string {
  return view.state.doc.toString();
}

/** Shows problems: at their line when they have one, else on the first line. */
export function showProblems(view: EditorView, problems: Problem[]): void {
  const doc = view.state.doc;
  const diagnostics: Diagnostic[] = problems.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line ?? 1, 1), doc.lines));
    return { from: line.from, to: line.to, severity: 'error', message: p.message };
  });
  const lines = problems.flatMap((p) => (p.line ? [p.line] : []));
  view.dispatch(setDiagnostics(view.state, diagnostics), { effects: setErrorLines.of(lines) });
}
