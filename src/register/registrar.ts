// Keeps the ResourceInterpreterWebhookConfiguration in karmada-apiserver current for `serve --register`:
// applied at start, again whenever the serving certificate (and so possibly the CA) rotates or the
// served kinds change, and periodically to repair drift. Failures are logged and retried with backoff;
// they never stop the server (Karmada keeps calling us with the last configuration it has).
import type { Logger } from 'pino';
import type { ServedKind } from '../interpreter/registry.ts';
import { webhookConfiguration, type WebhookConfigOptions } from '../cli/webhook-config.ts';
import { applyWebhookConfiguration, loadKubeConfig, type ApplyResult, type WebhookConfigurationObject } from './apply.ts';
import { readCaBundle, type CaSource } from './ca-bundle.ts';

export interface RegistrationOptions extends Omit<WebhookConfigOptions, 'caBundle'>, CaSource {
  kubeconfig: string;
  context?: string;
}

/** Builds the configuration for what is served now, with the CA bundle read now. */
export async function desiredConfiguration(served: ServedKind[], options: RegistrationOptions): Promise<{ object: WebhookConfigurationObject; caFile: string }> {
  const ca = await readCaBundle(options);
  const object = webhookConfiguration(served, { ...options, caBundle: ca.pem }) as unknown as WebhookConfigurationObject;
  return { object, caFile: ca.file };
}

/** One create-or-update; what `register` runs. */
export async function registerOnce(served: ServedKind[], options: RegistrationOptions): Promise<{ result: ApplyResult; caFile: string; name: string }> {
  const { object, caFile } = await desiredConfiguration(served, options);
  const kubeConfig = loadKubeConfig(options.kubeconfig, options.context);
  return { result: await applyWebhookConfiguration(kubeConfig, object), caFile, name: object.metadata.name };
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
      const { result, caFile, name } = await registerOnce(this.served(), this.options);
      this.failures = 0;
      this.lastResult = result;
      this.onResult?.(result);
      const log = result === 'unchanged' ? this.logger.debug.bind(this.logger) : this.logger.info.bind(this.logger);
      log({ reason, result, name, caFile }, 'ResourceInterpreterWebhookConfiguration in karmada-apiserver is current');
      this.schedule(this.timing.resyncMs ?? 300_000, 'resync');
    } catch (error) {
      this.failures += 1;
      this.onResult?.('error');
      const delay = Math.min((this.timing.backoffMs ?? 2000) * 2 ** (this.failures - 1), this.timing.maxBackoffMs ?? 120_000);
      this.logger.error({ err: error, reason, retryInMs: delay }, 'could not register the webhook configuration in karmada-apiserver');
      this.schedule(delay, 'retry');
    }
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
