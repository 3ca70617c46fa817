// Keeps the ResourceInterpreterWebhookConfiguration in karmada-apiserver current for `serve --register`:
// applied at start, again whenever the serving certificate (and so possibly the CA) rotates or the
// served kinds change, and periodically to repair drift. Failures are logged and retried with backoff;
// they never stop the server (Karmada keeps calling us with the last configuration it has). Each apply
// also lists the ResourceInterpreterCustomizations that take operations away from us (precedence.ts);
// the warning is logged when that list changes.
import type { Logger } from 'pino';
import type { ServedKind } from '../interpreter/registry.ts';
import { webhookConfiguration, type WebhookConfigOptions } from '../cli/webhook-config.ts';
import { applyWebhookConfiguration, type ApplyResult, type WebhookConfigurationObject } from './apply.ts';
import { readCaBundle, type CaSource } from './ca-bundle.ts';
import { loadKubeconfig, type KubeconfigSource } from './kubeconfig.ts';
import { findShadowingCustomizations, shadowWarning, type ShadowingCustomization } from './precedence.ts';

export interface RegistrationOptions extends Omit<WebhookConfigOptions, 'caBundle'>, CaSource, KubeconfigSource {}

export interface RegistrationOutcome {
  result: ApplyResult;
  caFile: string;
  name: string;
  /** The kubeconfig files read and the context used. */
  files: string[];
  context: string;
  server: string;
  /** RICs in karmada-apiserver that answer operations we serve; undefined when they could not be listed. */
  shadowing?: ShadowingCustomization[];
  /** Why the RICs could not be listed (e.g. no list permission); the registration itself succeeded. */
  shadowingError?: string;
}

/** Builds the configuration for what is served now, with the CA bundle read now. */
export async function desiredConfiguration(
  served: ServedKind[],
  options: RegistrationOptions,
): Promise<{ object: WebhookConfigurationObject; caFile: string }> {
  const ca = await readCaBundle(options);
  const object = webhookConfiguration(served, { ...options, caBundle: ca.pem }) as unknown as WebhookConfigurationObject;
  return { object, caFile: ca.file };
}

/** One server-side apply, then the precedence check; what `register` runs. */
export async function registerOnce(served: ServedKind[], options: RegistrationOptions): Promise<RegistrationOutcome> {
  const { object, caFile } = await desiredConfiguration(served, options);
  const { kubeConfig, files, context, server } = loadKubeconfig(options);
  const result = await applyWebhookConfiguration(kubeConfig, object);
  const outcome: RegistrationOutcome = { result, caFile, name: object.metadata.name, files, context, server };
  try {
    outcome.shadowing = await findShadowingCustomizations(kubeConfig, served);
  } catch (error) {
    outcome.shadowingError = (error as Error).message;
  }
  return outcome;
}

export interface RegistrarTiming {
  /** First retry delay after a failure; doubles up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Re-apply this often even without a change (repairs edits and deletions). */
  resyncMs?: number;
}

export class Registrar {
  private timer?: NodeJS.Timeout;
  private failures = 0;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  /** What the last precedence warning said, so it is logged again only when it changes. */
  private lastShadowing?: string;
  /** Outcome of the last successful apply (for tests and logs). */
  lastResult?: ApplyResult;

  private readonly served: () => ServedKind[];
  private readonly options: RegistrationOptions;
  private readonly logger: Logger;
  private readonly timing: RegistrarTiming;
  private readonly onResult?: (result: ApplyResult | 'error') => void;

  constructor(
    served: () => ServedKind[],
    options: RegistrationOptions,
    logger: Logger,
    timing: RegistrarTiming = {},
    onResult?: (result: ApplyResult | 'error') => void,
  ) {
    this.served = served;
    this.options = options;
    this.logger = logger;
    this.timing = timing;
    this.onResult = onResult;
  }

  /** Applies now (queued behind a running apply); never rejects. */
  refresh(reason: string): Promise<void> {
    this.running = this.running.then(() => this.apply(reason));
    return this.running;
  }

  private async apply(reason: string): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.timer);
    try {
      const { result, caFile, name, context, shadowing, shadowingError } = await registerOnce(this.served(), this.options);
      this.failures = 0;
      this.lastResult = result;
      this.onResult?.(result);
      const log = result === 'unchanged' ? this.logger.debug.bind(this.logger) : this.logger.info.bind(this.logger);
      log({ reason, result, name, caFile, context }, 'ResourceInterpreterWebhookConfiguration in karmada-apiserver is current');
      this.reportShadowing(shadowing, shadowingError);
      this.schedule(this.timing.resyncMs ?? 300_000, 'resync');
    } catch (error) {
      this.failures += 1;
      this.onResult?.('error');
      const delay = Math.min((this.timing.backoffMs ?? 2000) * 2 ** (this.failures - 1), this.timing.maxBackoffMs ?? 120_000);
      this.logger.error({ err: error, reason, retryInMs: delay }, 'could not register the webhook configuration in karmada-apiserver');
      this.schedule(delay, 'retry');
    }
  }

  private reportShadowing(shadowing: ShadowingCustomization[] | undefined, error: string | undefined): void {
    const said = error ?? JSON.stringify(shadowing);
    if (said === this.lastShadowing) return;
    this.lastShadowing = said;
    if (error) this.logger.warn({ err: new Error(error) }, 'could not check for ResourceInterpreterCustomizations that take precedence over this webhook');
    else if (shadowing!.length > 0) this.logger.warn({ shadowing }, shadowWarning(shadowing!));
    else this.logger.info('no ResourceInterpreterCustomization in karmada-apiserver takes precedence over this webhook');
  }

  private schedule(ms: number, reason: string): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(reason), ms);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
