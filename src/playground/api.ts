// The JSON the playground page and its server exchange (/api/*): one definition for both sides. Types
// only and no imports, so the page's bundle and its separate type check (web/playground) can use it.

/** A problem with a line of one of the page's texts (1-based), when it has one. */
export interface Problem {
  message: string;
  line?: number;
}

/** A kind the picker offers. */
export interface Kind {
  apiVersion: string;
  kind: string;
  operations: string[];
  layer: string;
}

/** A testdata file or example request the sample picker offers, with its cases' names. */
export interface Sample {
  apiVersion: string;
  kind: string;
  /** Relative to the folder it was found under, for the picker. */
  file: string;
  cases: string[];
}

/** The page's inputs, as the editors hold them (YAML texts). */
export interface PageInputs {
  name: string;
  operation?: string;
  template?: string;
  member?: string;
  statusItems?: string[];
  replicas?: number;
}

/** POST /api/run and /api/export. */
export interface RunRequest {
  /** A ResourceInterpreterCustomization file's text from the editor; empty for none. */
  customization?: string;
  /** The resource template (YAML). */
  template: string;
  /** The object in the member cluster (YAML): Retain's observed object, InterpretStatus and InterpretHealth's input. */
  member?: string;
  /** AggregateStatus items, one YAML text per member cluster. */
  statusItems?: string[];
  /** ReviseReplica's replicas for the member cluster. */
  replicas?: number;
}

/** One operation's answer as the page shows it. */
export interface OperationAnswer {
  operation: string;
  ok: boolean;
  /** HTTP-style code of a failure (404 not served, 501 not implemented, 500 a script error, ...). */
  code?: number;
  message?: string;
  /** The customization file's line the failure points at. */
  line?: number;
  layer?: string;
  /** "your customization my-ric (editor)", "the TypeScript module typescript:CloneSet", ... */
  answeredBy?: string;
  /** The results as YAML, as the page shows them. */
  text?: string;
  /** For revised, retained and aggregatedStatus: the input object as YAML (the page diffs the answer against it). */
  before?: string;
  ms: number;
  /** Karmada's built-in answer for the same inputs (with --karmada-customizations). */
  karmada?: { ok: boolean; text?: string; message?: string; same: boolean; noScript?: boolean };
}

/** The answer of POST /api/run. */
export interface RunResponse<Answer extends OperationAnswer = OperationAnswer> {
  apiVersion: string;
  kind: string;
  customization?: { errors: Problem[]; warnings: Problem[]; targets: Array<{ apiVersion: string; kind: string }> };
  /** Inputs that could not be read; the operations that need them are not run. */
  inputErrors: { template?: Problem; member?: Problem; statusItems?: Array<Problem | null> };
  operations: Answer[];
}
