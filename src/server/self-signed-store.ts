// The self-signed default (`npm start` without certificate flags), kept between restarts in a private
// directory: the CA a user handed to curl (--cacert) or put in a webhook configuration's caBundle stays
// valid across restarts, the path to it stays the same, and a restart skips generation. A stored set is
// reused only when it is whole and sound: the key matches the serving certificate, the CA signed it, its
// SANs are exactly the ones asked for, and it has more than RENEW_BEFORE_DAYS left.
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_SANS } from './default-sans.ts';

export interface SelfSignedFiles {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** True when a stored set was good enough to serve again; false when it was generated now. */
  reused: boolean;
}

const RENEW_BEFORE_DAYS = 30;
/** Two servers starting at once may both write a set; each then serves the whole set it finds. */
const WRITE_ATTEMPTS = 5;

/** Where the set lives unless --self-signed-dir says otherwise: the user's cache, else a per-user temp dir. */
export function defaultSelfSignedDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  const home = safeHomedir();
  const cache = env.XDG_CACHE_HOME || (home ? join(home, '.cache') : undefined);
  if (cache) dirs.push(join(cache, 'karmada-interpreter-webhook'));
  dirs.push(join(tmpdir(), `karmada-interpreter-webhook-${process.getuid?.() ?? 'user'}`));
  return dirs;
}

function safeHomedir(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined; // no passwd entry for our uid (containers running as an arbitrary uid)
  }
}

/**
 * The directory for a SAN set inside a base directory: the base itself for the default SANs (so the
 * README can name the CA's path), a `sans-<hash>` subdirectory per other set, so servers started
 * with different --tls-san values side by side never replace each other's certificate.
 */
export function setDirectory(base: string, extraSans: string[]): string {
  const wanted = normalizedSans([...DEFAULT_SANS, ...extraSans]);
  if (sameSet(wanted, normalizedSans(DEFAULT_SANS))) return base;
  return join(
    base,
    `sans-${createHash('sha256')
      .update([...wanted].sort().join('\n'))
      .digest('hex')
      .slice(0, 12)}`,
  );
}

/**
 * The stored set for the default SANs plus `extraSans` (--tls-san) from the first usable base
 * directory, generated there when missing, broken, for other SANs or close to expiry. `explicitDir`
 * (--self-signed-dir) is the only candidate when given, and an error when unusable; the defaults
 * fall through to a fresh temp dir.
 */
export async function selfSignedFiles(extraSans: string[], explicitDir?: string, now = new Date()): Promise<SelfSignedFiles> {
  const candidates = explicitDir ? [explicitDir] : defaultSelfSignedDirs();
  let lastError: unknown;
  for (const base of candidates) {
    try {
      return await inDirectory(setDirectory(base, extraSans), extraSans, now);
    } catch (error) {
      if (explicitDir) throw new Error(`--self-signed-dir ${explicitDir}: ${(error as Error).message}`, { cause: error });
      lastError = error;
    }
  }
  // Nowhere to keep it (read-only file system, foreign directories): a one-off set in a new temp dir.
  const dir = await mkdtemp(join(tmpdir(), 'karmada-interpreter-webhook-')).catch(() => {
    throw new Error(`no directory for the self-signed certificate: ${(lastError as Error | undefined)?.message ?? 'unknown'}`);
  });
  return generateInto(dir, extraSans);
}

async function inDirectory(dir: string, extraSans: string[], now: Date): Promise<SelfSignedFiles> {
  await privateDirectory(dir);
  const files = filesIn(dir);
  if (await storedSetIsGood(files, extraSans, now)) return { ...files, reused: true };
  for (let attempt = 1; ; attempt++) {
    const written = await generateInto(dir, extraSans);
    // Another server may be writing its set at the same time, file by file: wait for the files to settle
    // (a random pause, so writers fall out of step) and serve the set on disk once it is whole.
    for (let look = 0; look < 3; look++) {
      if (await storedSetIsGood(files, extraSans)) return written;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
    if (attempt >= WRITE_ATTEMPTS) throw new Error(`${dir}: the certificate files keep changing while they are written`);
  }
}

function filesIn(dir: string) {
  return { dir, caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
}

/** Creates the directory (0700) and refuses one that others could write to or that is not ours. */
async function privateDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new Error(`${dir} belongs to uid ${info.uid}, not to us (${uid})`);
  if ((info.mode & 0o077) !== 0) throw new Error(`${dir} is open to other users (mode ${(info.mode & 0o777).toString(8)}); it holds a private key`);
}

/** Whether the files hold a sound set for exactly the default SANs plus `extraSans`, usable well beyond `now`. */
export async function storedSetIsGood(files: { caFile: string; certFile: string; keyFile: string }, extraSans: string[], now = new Date()): Promise<boolean> {
  try {
    const [caPem, certPem, keyPem] = await Promise.all([readFile(files.caFile, 'utf8'), readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
    const ca = new X509Certificate(caPem);
    const leaf = new X509Certificate(certPem);
    const renewAt = new Date(leaf.validTo).getTime() - RENEW_BEFORE_DAYS * 86_400_000;
    return (
      ca.ca &&
      leaf.checkIssued(ca) &&
      leaf.verify(ca.publicKey) &&
      leaf.checkPrivateKey(createPrivateKey(keyPem)) &&
      new Date(leaf.validFrom).getTime() <= now.getTime() &&
      now.getTime() < renewAt &&
      new Date(ca.validTo).getTime() > renewAt &&
      sameSet(sansOf(leaf), normalizedSans([...DEFAULT_SANS, ...extraSans]))
    );
  } catch {
    return false; // missing, unreadable or not PEM: generate a new set
  }
}

async function generateInto(dir: string, extraSans: string[]): Promise<SelfSignedFiles> {
  const { generateSelfSigned } = await import('./certificates.ts');
  const generated = await generateSelfSigned(extraSans);
  const files = filesIn(dir);
  // Each file appears whole (written aside, then renamed); the key first and the CA last, and readers
  // check the three belong together, so a half-replaced set is never taken for a good one.
  const tag = `.tmp-${process.pid}-${Date.now()}`;
  for (const [file, text, mode] of [
    [files.keyFile, generated.keyPem, 0o600],
    [files.certFile, generated.certPem, 0o644],
    [files.caFile, generated.caPem, 0o644],
  ] as const) {
    await writeFile(file + tag, text, { mode });
    await rename(file + tag, file);
  }
  return { ...files, reused: false };
}

/** SANs as a set: DNS names lower-cased, IPs in one canonical spelling (`::1`, not `0:0:0:0:0:0:0:1`). */
function normalizedSans(sans: readonly string[]): Set<string> {
  return new Set(sans.map((san) => (isIP(san) ? canonicalIp(san) : `dns:${san.toLowerCase()}`)));
}

function canonicalIp(ip: string): string {
  return `ip:${new URL(`http://${isIP(ip) === 6 ? `[${ip}]` : ip}`).hostname}`;
}

/** The SANs of a certificate as Node prints them: `DNS:a, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1`. */
function sansOf(cert: X509Certificate): Set<string> {
  const sans = new Set<string>();
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) sans.add(`dns:${entry.slice(4).toLowerCase()}`);
    else if (entry.startsWith('IP Address:')) sans.add(canonicalIp(entry.slice(11)));
  }
  return sans;
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}
