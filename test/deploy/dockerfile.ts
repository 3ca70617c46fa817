// Reading the project's Dockerfile for the tests: stages of instructions, as BuildKit sees them.
export interface Instruction {
  op: string;
  args: string;
}
export interface Stage {
  base: string;
  name?: string;
  /** FROM --platform=..., when given. */
  platform?: string;
  instructions: Instruction[];
}

/** Dockerfile -> stages of instructions (comments dropped, backslash continuations joined). */
export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && current === '')) continue;
    if (line.endsWith('\\')) current += line.slice(0, -1) + ' ';
    else {
      logical.push((current + line).trim());
      current = '';
    }
  }
  const stages: Stage[] = [];
  for (const line of logical.filter(Boolean)) {
    const [, op, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (op!.toUpperCase() === 'FROM') {
      const [, platform, base, name] = /^(?:--platform=(\S+)\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!)!;
      stages.push({ base: base!, name, ...(platform ? { platform } : {}), instructions: [] });
    } else stages.at(-1)!.instructions.push({ op: op!.toUpperCase(), args: args! });
  }
  return stages;
}

/** The JSON (exec) form of an instruction's arguments, e.g. ENTRYPOINT ["a", "b"]. */
export const execForm = (instruction: Instruction) => JSON.parse(instruction.args) as string[];
