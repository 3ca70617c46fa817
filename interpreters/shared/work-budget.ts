// A cap on the work one request may cause where the work is not linear in the request by construction
// (a value merged into every one of many templates, combinations of alternatives). Reaching the cap is
// a 400 naming what was too large, so a hostile object costs bounded time and memory and a real one
// gets an answer that says why there is none.
import { InterpreterError } from '../../src/interpreter/types.ts';

export class WorkBudget {
  private used = 0;
  readonly limit: number;
  private readonly subject: string;

  /** `subject` completes "… is too large to interpret", e.g. "Workflow ci/build". */
  constructor(limit: number, subject: string) {
    this.limit = limit;
    this.subject = subject;
  }

  /** Records `units` of work; throws InterpreterError(400) once the total passes the limit. */
  charge(units: number, what: string): void {
    this.used += units;
    if (this.used > this.limit) {
      throw new InterpreterError(400, `${this.subject} is too large to interpret: ${what} would take more than ${this.limit} steps`);
    }
  }
}
