// What the worker pool remembers of each key (a customization's script, decision 0016): whether its last
// call answered in time, its streak of timeouts, and its circuit breaker. The pool asks it how a key stands
// (which lane may take its calls), whether a call may run at all, and tells it how each call ended; the
// queues and workers stay the pool's (worker-pool.ts).

/** Timeouts in a row, each within BREAKER_WINDOW_MS of the first, that open a key's circuit. */
export const BREAKER_TIMEOUTS = 3;
export const BREAKER_WINDOW_MS = 60_000;
/** How long an open circuit answers at once before one call is let through; doubled after each trial that times out. */
export const BREAKER_COOLDOWN_MS = 10_000;
export const BREAKER_MAX_COOLDOWN_MS = 300_000;

/** How an answer given at once by an open circuit begins (after the customization and function). */
export const CIRCUIT_OPEN_MESSAGE = 'not run (circuit breaker)';

/** A name (customization) with a key whose circuit is open or trying a call, or whose calls were answered at once (metrics). */
export interface CircuitStats {
  /** The tasks' name (TaskOptions.name): the customization, whichever of its scripts' keys is meant. */
  key: string;
  /** The worst of its keys: calls answered at once (open), one call being tried and the others answered at once (trial), or neither. */
  state: 'closed' | 'open' | 'trial';
  /** Calls answered at once since the pool started (never decreases: kept apart from the keys, which are forgotten). */
  refused: number;
}

/** How a key stands, the order in which its queued calls are taken: lower goes first. */
export const PROVEN = 0;
export const UNHEARD = 1;
export const SUSPECT = 2;

/** What is remembered of a key: how its calls ended, and its circuit. */
interface KeyState {
  /** The last finished call answered in time. */
  proven: boolean;
  /** End times of the timeouts since the last answer in time (the streak that opens the circuit). */
  timeouts: number[];
  /** While set, the circuit is open until this time (performance.now()), then lets one call through. */
  openUntil?: number;
  cooldownMs: number;
  /** The trial call is queued or running. */
  trying: boolean;
  /** Timeouts in a row since the last answer in time, and when the first of them ended (the answers name them). */
  streak: number;
  streakSince: number;
  /** The name of the key's calls (stats). */
  name: string;
  /** performance.now() of its last call, answered at once or not. */
  lastCall: number;
}

/** Keys remembered (customizations of the loaded set; idle ones are forgotten past this). */
const MAX_KEYS = 4096;

/** Whether the pool holds a call of the key, queued or running: its state is in use and is kept. */
export type KeyInUse = (key: string) => boolean;

export class KeyStandings {
  private readonly keys = new Map<string, KeyState>();
  /**
   * Calls answered at once, by name, for the pool's life: a Prometheus counter must never go down, so the
   * totals are not part of the forgettable key state. Bounded by the names of customizations ever loaded
   * whose circuit opened (configuration, not requests).
   */
  private readonly refused = new Map<string, number>();
  private readonly inUse: KeyInUse;

  constructor(inUse: KeyInUse) {
    this.inUse = inUse;
  }

  /**
   * A new call of `key`: the message to answer it with at once while its circuit is open (counted), else
   * whether it is the one call let through a circuit whose cool-down passed.
   */
  admit(key: string, name: string, now: number): { refused: string } | { trial: boolean } {
    const state = this.state(key, name, now);
    state.lastCall = now;
    if (state.openUntil === undefined) return { trial: false };
    if (now < state.openUntil || state.trying) return { refused: this.refuse(state, now) };
    state.trying = true;
    return { trial: true };
  }

  /** A trial call that will not run: the next call is the trial. */
  trialDropped(key: string, name: string, now: number): void {
    this.state(key, name, now).trying = false;
  }

  /**
   * Records how a call of a key ended; returns the message to answer its queued calls with when this opened
   * its circuit (they are refused and counted here), else undefined.
   */
  finished(
    key: string,
    name: string,
    call: { trial: boolean; breaker: boolean },
    outcome: 'in-time' | 'timeout' | 'other',
    now: number,
    queued: number,
  ): string | undefined {
    const state = this.state(key, name, now);
    if (call.trial) state.trying = false;
    if (outcome === 'other') return undefined; // stopped for memory or crashed: no word on time
    if (state.openUntil !== undefined && !call.trial) return undefined; // while open, only the trial decides
    if (outcome === 'in-time') {
      state.proven = true;
      state.timeouts.length = 0;
      state.streak = 0;
      if (call.trial) {
        state.openUntil = undefined;
        state.cooldownMs = BREAKER_COOLDOWN_MS;
      }
      return undefined;
    }
    state.proven = false;
    if (state.streak++ === 0) state.streakSince = now;
    state.timeouts.push(now);
    while (now - state.timeouts[0]! > BREAKER_WINDOW_MS) state.timeouts.shift();
    if (!call.breaker) return undefined; // its timeouts rank it in the queue, never refuse its calls
    if (call.trial) state.cooldownMs = Math.min(BREAKER_MAX_COOLDOWN_MS, state.cooldownMs * 2);
    else if (state.openUntil !== undefined || state.timeouts.length < BREAKER_TIMEOUTS) return undefined;
    state.openUntil = now + state.cooldownMs;
    this.refused.set(name, (this.refused.get(name) ?? 0) + queued);
    return this.message(state, now);
  }

  /**
   * PROVEN, UNHEARD or SUSPECT, from what is remembered (the pool adds a call running past its limit): a
   * streak of timeouts or a circuit not closed is SUSPECT. A streak older than the window is forgotten.
   */
  standing(key: string, now: number): number {
    const state = this.keys.get(key);
    if (!state) return UNHEARD;
    if (state.openUntil !== undefined) return SUSPECT;
    if (state.timeouts.length > 0) {
      if (now - state.timeouts[state.timeouts.length - 1]! <= BREAKER_WINDOW_MS) return SUSPECT;
      state.timeouts.length = 0;
    }
    return state.proven ? PROVEN : UNHEARD;
  }

  /** The names whose circuit is not closed, or that had calls answered at once. */
  circuits(now: number): CircuitStats[] {
    const states = new Map<string, CircuitStats['state']>();
    for (const [key, state] of this.keys) {
      if (state.openUntil === undefined) continue;
      if (this.stale(key, state, now)) {
        this.keys.delete(key);
        continue;
      }
      const s = now < state.openUntil ? 'open' : 'trial';
      if (states.get(state.name) !== 'open') states.set(state.name, s);
    }
    const circuits: CircuitStats[] = [];
    for (const name of new Set([...states.keys(), ...this.refused.keys()])) {
      circuits.push({ key: name, state: states.get(name) ?? 'closed', refused: this.refused.get(name) ?? 0 });
    }
    return circuits;
  }

  private state(key: string, name: string, now: number): KeyState {
    let state = this.keys.get(key);
    if (state && !this.stale(key, state, now)) return state;
    if (this.keys.size >= MAX_KEYS) this.forgetIdle(now);
    state = { proven: false, timeouts: [], cooldownMs: BREAKER_COOLDOWN_MS, trying: false, streak: 0, streakSince: 0, name, lastCall: 0 };
    this.keys.set(key, state);
    return state;
  }

  private refuse(state: KeyState, now: number): string {
    this.refused.set(state.name, (this.refused.get(state.name) ?? 0) + 1);
    return this.message(state, now);
  }

  private message(state: KeyState, now: number): string {
    const then = state.trying
      ? 'one call is being tried before the others run'
      : `its calls are answered at once for the next ${Math.ceil((state.openUntil! - now) / 1000)} s, then one is tried`;
    return `${CIRCUIT_OPEN_MESSAGE}: its last ${state.streak} calls timed out, the first ${((now - state.streakSince) / 1000).toFixed(1)} s ago; ${then}`;
  }

  /**
   * An open key not called for BREAKER_WINDOW_MS past its cool-down, no call of it held by the pool: its
   * script was removed or replaced (Karmada calls a served customization all the time), so its state is
   * dropped rather than read as open forever; a script merely called that rarely starts afresh.
   */
  private stale(key: string, state: KeyState, now: number): boolean {
    if (state.openUntil === undefined || state.trying) return false;
    if (now - Math.max(state.openUntil, state.lastCall) <= BREAKER_WINDOW_MS) return false;
    return !this.inUse(key);
  }

  /**
   * Keys the pool holds no call of whose circuit is closed or past its cool-down (removed scripts' keys
   * among them): what they had earned, or a cool-down's doubling, is lost; refused totals are kept.
   */
  private forgetIdle(now: number): void {
    for (const [key, state] of this.keys) {
      const open = state.trying || (state.openUntil !== undefined && now < state.openUntil);
      if (!open && !this.inUse(key)) this.keys.delete(key);
    }
  }
}
