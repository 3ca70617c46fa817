// Named readiness checks (TLS serving, registry loaded, customizations loaded, shutting down).
// /readyz is 200 only when every check passes; each failing check says why.
export interface CheckState {
  ok: boolean;
  detail?: string;
}

export class Readiness {
  private readonly checks = new Map<string, CheckState>();

  set(name: string, ok: boolean, detail?: string): void {
    this.checks.set(name, detail === undefined ? { ok } : { ok, detail });
  }

  get ready(): boolean {
    return [...this.checks.values()].every((c) => c.ok);
  }

  report(): { ready: boolean; checks: Record<string, CheckState> } {
    return { ready: this.ready, checks: Object.fromEntries(this.checks) };
  }
}
