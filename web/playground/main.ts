// The playground page: editors for a customization and the inputs on the left, every operation's answer
// on the right, recomputed (debounced) on each edit by POST /api/run on the server that serves the page.
import type { EditorView } from '@codemirror/view';
import { lineDiff } from './diff.ts';
import type { Kind, OperationAnswer as Answer, PageInputs, Problem, RunResponse, Sample } from '../../src/playground/api.ts';
import { createEditor, getText, setText, showProblems } from './editors.ts';
import './style.css';

const OPERATIONS = [
  'InterpretReplica',
  'ReviseReplica',
  'Retain',
  'AggregateStatus',
  'InterpretStatus',
  'InterpretHealth',
  'InterpretDependency',
  'InterpretComponent',
];
const DEBOUNCE_MS = 300;
const CONTEXT = 2;
const token = document.querySelector<HTMLMetaElement>('meta[name="playground-token"]')?.content ?? '';

async function api<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-playground-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(json.error ?? `HTTP ${response.status}`);
  return json;
}

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | ((e: Event) => void)> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false) el.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

// ---- state -----------------------------------------------------------------------------------------
let kinds: Kind[] = [];
let samples: Sample[] = [];
let karmada = false;
let runSeq = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
const statusItems: Array<{ box: HTMLElement; view: EditorView }> = [];

const schedule = () => {
  clearTimeout(timer);
  timer = setTimeout(() => void recompute(), DEBOUNCE_MS);
};

// ---- layout ----------------------------------------------------------------------------------------
const status = h('span', { id: 'status', role: 'status', 'aria-live': 'polite' });
const kindSelect = h('select', { id: 'kind', onchange: () => void pickKind() });
const sampleSelect = h('select', { id: 'sample', onchange: () => void pickSample() });
const fileInput = h('input', { type: 'file', id: 'open-file', accept: '.yaml,.yml,.json', class: 'visually-hidden', onchange: () => void openFile() });
const replicasInput = h('input', { type: 'number', id: 'replicas', min: '0', value: '1', oninput: schedule });
const itemsList = h('div', { id: 'status-items' });
const resultsPane = h('section', { class: 'results', 'aria-label': 'Answers' });
const preserveOut = h('pre', { id: 'preserve-output', 'aria-live': 'polite' });
const customizationProblems = h('ul', { id: 'customization-problems', class: 'problems' });
const exportDialog = h('dialog', { id: 'export-dialog', 'aria-labelledby': 'export-title' });

function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'panel', 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), ...children);
}

const app = document.getElementById('app')!;
app.removeAttribute('aria-busy');
app.textContent = '';
const customizationBox = h('div', { class: 'editor tall' });
const templateBox = h('div', { class: 'editor' });
const memberBox = h('div', { class: 'editor' });
const rulesBox = h('div', { class: 'editor short' });
app.append(
  h(
    'header',
    {},
    h('h1', {}, 'Interpreter playground'),
    h('label', { for: 'kind' }, 'Kind '),
    kindSelect,
    h('label', { for: 'sample' }, 'Sample '),
    sampleSelect,
    h('label', { for: 'open-file', class: 'button', tabindex: '0', onkeydown: (e) => activate(e, () => fileInput.click()) }, 'Open file…'),
    fileInput,
    h('button', { type: 'button', id: 'export', onclick: () => void exportCase() }, 'Export test case'),
    status,
  ),
  h(
    'main',
    {},
    h(
      'div',
      { class: 'inputs' },
      section(
        'Customization (YAML and Lua)',
        'customization',
        h(
          'div',
          { class: 'toolbar' },
          h('button', { type: 'button', id: 'new-customization', onclick: () => newCustomization() }, 'New for this kind'),
          h('button', { type: 'button', onclick: () => setText(customization, '') }, 'Clear'),
          h('span', { class: 'hint' }, 'empty: the server’s own interpreters answer'),
        ),
        customizationBox,
        customizationProblems,
      ),
      section('Resource template', 'template', templateBox),
      section('Member-cluster object (Retain, InterpretStatus, InterpretHealth)', 'member', memberBox),
      section(
        'Aggregated status items (one per member cluster)',
        'items',
        itemsList,
        h('button', { type: 'button', id: 'add-item', onclick: () => addItem(itemTemplate(statusItems.length + 1)) }, 'Add member cluster'),
      ),
      section('ReviseReplica', 'revise', h('label', { for: 'replicas' }, 'Replicas for the member cluster '), replicasInput),
      section(
        'State preservation (/preserve)',
        'preserve',
        h('p', { class: 'hint' }, 'statePreservation rules (a list of aliasLabelName and jsonPath) evaluated against the member object’s reflected status:'),
        rulesBox,
        preserveOut,
      ),
    ),
    resultsPane,
  ),
  exportDialog,
);

function activate(event: Event, action: () => void): void {
  const key = (event as KeyboardEvent).key;
  if (key === 'Enter' || key === ' ') {
    event.preventDefault();
    action();
  }
}

const customization = createEditor(customizationBox, 'Customization', '', schedule);
const template = createEditor(templateBox, 'Resource template', '', schedule);
const member = createEditor(memberBox, 'Member-cluster object', '', schedule);
const rules = createEditor(rulesBox, 'State preservation rules', '- aliasLabelName: example.io/replicas\n  jsonPath: "{ .replicas }"\n', schedule);

function itemTemplate(n: number): string {
  return `clusterName: member${n}\napplied: true\nhealth: Healthy\nstatus: {}\n`;
}

function addItem(text: string, after?: number): void {
  const box = h('div', { class: 'item' });
  const editorBox = h('div', { class: 'editor short' });
  const entry = { box, view: undefined as unknown as EditorView };
  const index = () => statusItems.indexOf(entry);
  box.append(
    h(
      'div',
      { class: 'toolbar' },
      h('span', { class: 'item-title' }),
      h('button', { type: 'button', class: 'duplicate', onclick: () => addItem(getText(entry.view), index()) }, 'Duplicate'),
      h('button', { type: 'button', class: 'remove', onclick: () => removeItem(index()) }, 'Remove'),
    ),
    editorBox,
  );
  entry.view = createEditor(editorBox, 'Status item', text, schedule);
  if (after === undefined || after >= statusItems.length - 1) {
    itemsList.append(box);
    statusItems.push(entry);
  } else {
    statusItems[after]!.box.after(box);
    statusItems.splice(after + 1, 0, entry);
  }
  renumberItems();
  schedule();
}

function removeItem(index: number): void {
  const [entry] = statusItems.splice(index, 1);
  entry?.view.destroy();
  entry?.box.remove();
  renumberItems();
  schedule();
}

function renumberItems(): void {
  statusItems.forEach((entry, i) => {
    entry.box.querySelector('.item-title')!.textContent = `Status item ${i + 1}`;
    entry.view.contentDOM.setAttribute('aria-label', `Status item ${i + 1}`);
    for (const button of entry.box.querySelectorAll('button')) button.setAttribute('aria-label', `${button.textContent} status item ${i + 1}`);
  });
}

function setItems(texts: string[]): void {
  while (statusItems.length > 0) removeItem(statusItems.length - 1);
  for (const text of texts) addItem(text);
}

// ---- inputs in, answers out ------------------------------------------------------------------------
function currentInputs() {
  return {
    customization: getText(customization),
    template: getText(template),
    member: getText(member),
    statusItems: statusItems.map((entry) => getText(entry.view)),
    replicas: Number(replicasInput.value) || 0,
  };
}

function applyInputs(inputs: PageInputs): void {
  if (inputs.template !== undefined) setText(template, inputs.template);
  if (inputs.member !== undefined) setText(member, inputs.member);
  if (inputs.statusItems !== undefined) setItems(inputs.statusItems);
  if (inputs.replicas !== undefined) replicasInput.value = String(inputs.replicas);
  schedule();
}

async function recompute(): Promise<void> {
  const seq = ++runSeq;
  status.textContent = 'computing…';
  const inputs = currentInputs();
  try {
    const [run, preserved] = await Promise.all([
      api<RunResponse>('/api/run', inputs),
      api<{ labels?: Record<string, string>; errors?: unknown[]; warnings?: unknown[]; error?: string }>('/api/preserve', {
        customization: inputs.customization,
        rules: getText(rules),
        member: inputs.member,
      }).catch((error: Error) => ({ error: error.message })),
    ]);
    if (seq !== runSeq) return;
    render(run);
    preserveOut.textContent = JSON.stringify(preserved, null, 2);
    status.textContent = `${run.apiVersion} ${run.kind}: ${run.operations.filter((op) => op.ok).length} of ${run.operations.length} operations answered`;
  } catch (error) {
    if (seq === runSeq) status.textContent = `error: ${(error as Error).message}`;
  }
}

function render(run: RunResponse): void {
  const pasted = run.customization;
  const lineProblems: Problem[] = [...(pasted?.errors ?? [])];
  for (const op of run.operations) if (!op.ok && op.line !== undefined) lineProblems.push({ message: `${op.operation}: ${op.message}`, line: op.line });
  showProblems(customization, lineProblems);
  customizationProblems.replaceChildren(
    ...(pasted?.errors ?? []).map((p) => h('li', { class: 'error' }, p.line ? `line ${p.line}: ` : '', p.message)),
    ...(pasted?.warnings ?? []).map((p) => h('li', { class: 'warning' }, p.message)),
  );
  showProblems(template, run.inputErrors.template ? [run.inputErrors.template] : []);
  showProblems(member, run.inputErrors.member ? [run.inputErrors.member] : []);
  statusItems.forEach((entry, i) => {
    const problem = run.inputErrors.statusItems?.[i];
    showProblems(entry.view, problem ? [problem] : []);
  });
  resultsPane.replaceChildren(
    h('h2', { class: 'visually-hidden' }, 'Answers'),
    ...OPERATIONS.map((name) => {
      const op = run.operations.find((o) => o.operation === name);
      return op ? card(op) : h('article', {});
    }),
  );
}

function card(op: Answer): HTMLElement {
  const state = op.ok ? 'ok' : op.code === 404 || op.code === 501 || op.code === 400 ? 'absent' : 'error';
  const body = op.ok
    ? resultView(op.text ?? '', op.before)
    : h('pre', { class: 'message' }, op.line ? `customization.yaml line ${op.line}: ` : '', op.message ?? '');
  const verdict = !op.karmada ? '' : op.karmada.same ? 'same' : op.karmada.noScript ? 'no script' : 'differs';
  const theirs = op.karmada
    ? h(
        'div',
        { class: `karmada ${verdict.replace(' ', '-')}`, 'data-karmada': verdict },
        h('h4', {}, `Karmada’s built-in (${verdict})`),
        h('pre', {}, op.karmada.ok ? (op.karmada.text ?? '') : (op.karmada.message ?? '')),
      )
    : null;
  return h(
    'article',
    { class: `op ${state}`, 'data-operation': op.operation, 'data-state': state, 'aria-label': op.operation },
    h(
      'div',
      { class: 'op-head' },
      h('h3', {}, op.operation),
      h('span', { class: 'layer' }, op.ok ? `answered by ${op.answeredBy}` : state === 'absent' ? 'not answered' : `failed (${op.code})`),
      h('span', { class: 'ms' }, `${op.ms} ms`),
    ),
    h('div', { class: theirs ? 'side-by-side' : '' }, body, theirs),
  );
}

function resultView(text: string, before: string | undefined): HTMLElement {
  if (before === undefined) return h('pre', { class: 'result' }, text);
  const lines = lineDiff(before, text);
  const changed = lines.filter((line) => line.kind !== ' ').length;
  // Unchanged lines more than CONTEXT away from a change fold into one "… N unchanged lines" line.
  const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((l) => l.kind !== ' '));
  const shown: Child[] = [];
  for (let i = 0; i < lines.length;) {
    if (near[i]) {
      const line = lines[i++]!;
      shown.push(h('span', { class: line.kind === '+' ? 'add' : line.kind === '-' ? 'del' : 'ctx' }, `${line.kind} ${line.text}\n`));
      continue;
    }
    let j = i;
    while (j < lines.length && !near[j]) j++;
    shown.push(h('span', { class: 'fold' }, `  … ${j - i} unchanged lines\n`));
    i = j;
  }
  return h(
    'div',
    { class: 'diff' },
    h('p', { class: 'hint' }, changed === 0 ? 'unchanged from the input' : `${changed} changed lines against the input`),
    h('pre', { class: 'result' }, ...shown),
  );
}

// ---- pickers, files, export ------------------------------------------------------------------------
async function pickKind(): Promise<void> {
  const [apiVersion, kind] = kindSelect.value.split(' ');
  if (!apiVersion || !kind) return;
  const mine = samples.filter((s) => s.apiVersion === apiVersion && s.kind === kind);
  sampleSelect.replaceChildren(
    h('option', { value: '' }, 'samples for this kind'),
    ...mine.flatMap((s) => s.cases.map((name, i) => h('option', { value: `${s.file}\u0000${i}` }, `${s.file}: ${name}`))),
  );
  applyInputs(await api<PageInputs>('/api/sample', { apiVersion, kind }));
}

async function pickSample(): Promise<void> {
  const [file, index] = sampleSelect.value.split('\u0000');
  if (!file) return;
  const read = await api<{ cases?: PageInputs[]; error?: string }>('/api/sample', { file });
  const chosen = read.cases?.[Number(index)];
  if (chosen) applyInputs(chosen);
  else status.textContent = read.error ?? 'no such case';
}

async function openFile(): Promise<void> {
  const file = fileInput.files?.[0];
  if (!file) return;
  const read = await api<{ cases?: PageInputs[]; error?: string }>('/api/open', { text: await file.text() });
  fileInput.value = '';
  if (!read.cases) {
    status.textContent = `${file.name}: ${read.error}`;
    return;
  }
  if (read.cases.length === 1) {
    applyInputs(read.cases[0]!);
    return;
  }
  const cases = read.cases;
  const choose = h('select', { id: 'case-picker', 'aria-label': `Case of ${file.name}` }, ...cases.map((c, i) => h('option', { value: String(i) }, c.name)));
  exportDialog.replaceChildren(
    h('h2', { id: 'export-title' }, `${file.name}: pick a case`),
    choose,
    h(
      'div',
      { class: 'toolbar' },
      h('button', { type: 'button', onclick: () => (applyInputs(cases[Number(choose.value)]!), exportDialog.close()) }, 'Open'),
      closeButton(),
    ),
  );
  exportDialog.showModal();
}

function closeButton(): HTMLElement {
  return h('button', { type: 'button', onclick: () => exportDialog.close() }, 'Close');
}

function download(name: string, text: string): HTMLElement {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  return h('a', { href: url, download: name, class: 'button' }, `Download ${name}`);
}

async function exportCase(): Promise<void> {
  const inputs = currentInputs();
  const exported = await api<{ testdata: string; curl: Record<string, string>; operations: number }>('/api/export', inputs);
  const kind = (kindSelect.value.split(' ')[1] ?? 'kind').toLowerCase();
  const curlPick = h(
    'select',
    { id: 'curl-operation', 'aria-label': 'Operation for curl' },
    ...Object.keys(exported.curl).map((op) => h('option', { value: op }, op)),
  );
  const curlText = h('textarea', { id: 'curl-text', rows: '6', readonly: true, 'aria-label': 'curl command' });
  const showCurl = () => (curlText.value = exported.curl[curlPick.value] ?? '');
  curlPick.addEventListener('change', showCurl);
  const testdata = h('textarea', { id: 'export-testdata', rows: '14', readonly: true, 'aria-label': 'Exported test case' });
  testdata.value = exported.testdata;
  const layout = inputs.customization.trim()
    ? `Save the customization as my-ric/customizations.yaml and the cases as my-ric/testdata/${kind}-test.yaml, then: npx karmada-interpreter test my-ric`
    : `Save the cases as my-cases/testdata/${kind}-test.yaml, then: npx karmada-interpreter test my-cases`;
  exportDialog.replaceChildren(
    h('h2', { id: 'export-title' }, `Export: ${exported.operations} cases`),
    h('p', {}, layout),
    testdata,
    h(
      'div',
      { class: 'toolbar' },
      download(`${kind}-test.yaml`, exported.testdata),
      inputs.customization.trim() ? download('customizations.yaml', inputs.customization) : null,
    ),
    h('h3', {}, 'As a curl command against a running server'),
    curlPick,
    curlText,
    h('div', { class: 'toolbar' }, closeButton()),
  );
  showCurl();
  exportDialog.showModal();
}

function newCustomization(): void {
  // The template's kind (it may be a new one nothing serves yet), else the picked one.
  const text = getText(template);
  const [pickedVersion, pickedKind] = (kindSelect.value || 'example.io/v1 Widget').split(' ');
  const apiVersion = /^apiVersion:\s*["']?([^\s"']+)/m.exec(text)?.[1] ?? pickedVersion;
  const kind = /^kind:\s*["']?([^\s"']+)/m.exec(text)?.[1] ?? pickedKind;
  setText(
    customization,
    `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: ${kind!.toLowerCase()}-playground
spec:
  target:
    apiVersion: ${apiVersion}
    kind: ${kind}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          if observedObj.status == nil then
            return false
          end
          return (observedObj.status.readyReplicas or 0) >= (observedObj.spec.replicas or 1)
        end
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas or 1, {}
        end
`,
  );
}

async function start(): Promise<void> {
  const listed = await api<{ kinds: Kind[]; samples: Sample[]; karmada: boolean }>('/api/kinds');
  kinds = listed.kinds;
  samples = listed.samples;
  karmada = listed.karmada;
  kindSelect.replaceChildren(...kinds.map((k) => h('option', { value: `${k.apiVersion} ${k.kind}` }, `${k.kind} (${k.apiVersion}) — ${k.layer}`)));
  document.body.classList.toggle('with-karmada', karmada);
  await pickKind();
}

void start().catch((error: Error) => (status.textContent = `error: ${error.message}`));
