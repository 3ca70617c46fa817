// Reading one customization file without trusting what is at its path (decision 0014): the path is
// resolved and must stay inside its configured root, the file is opened without blocking (a FIFO cannot
// hold the reader) and without following a link at its real path, then checked to be what that path still
// names, still inside the root (a path swapped for a link between the check and the open is refused), the open descriptor is checked (a regular file no larger than a ConfigMap) and at most
// MAX_CUSTOMIZATION_FILE_BYTES + 1 bytes are ever read, so a file that grows after the check is refused too.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { sep } from 'node:path';

/** A ConfigMap holds at most 1 MiB; a customization file larger than that is refused unread. */
export const MAX_CUSTOMIZATION_FILE_BYTES = 1024 * 1024;

/** O_NONBLOCK: opening a FIFO returns at once (then fstat refuses it); O_NOCTTY: a terminal never becomes ours. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Why a file was not read; the message never names a path outside the roots (it is shown by /readyz). */
export class RefusedFile extends Error {}

/** A file to read: its path as found, and the configured folder it was found in (none for an explicit `--customizations FILE`). */
export interface FoundFile {
  path: string;
  root?: string;
}

/** Whether `real` is `rootReal` or under it (both real paths). */
export function isInside(real: string, rootReal: string): boolean {
  return real === rootReal || real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep);
}

export const OUTSIDE_ROOT = 'refused: it resolves outside its --customizations folder (a link out of the folder is not followed)';

/** Its real path changed between resolving and opening it (a link swapped in): what was opened is not read. */
export const SWAPPED = 'refused: it was replaced while being opened (a link swapped in is not followed)';

/** A link at a real path (O_NOFOLLOW's ELOOP) was swapped in after realpath: refused, never followed. */
function refuseLink(error: unknown): never {
  if ((error as { code?: unknown })?.code === 'ELOOP') throw new RefusedFile(SWAPPED);
  throw error;
}

/** The file opened is the one its real path names now (checked after the open, so a swap before it shows). */
function checkSame(opened: BigIntStats, now: BigIntStats): void {
  if (opened.dev !== now.dev || opened.ino !== now.ino) throw new RefusedFile(SWAPPED);
}

function kindOf(stats: BigIntStats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Refuses what fstat says of the open file: only regular files no larger than the bound are read. */
function checkOpened(stats: BigIntStats): void {
  if (!stats.isFile()) throw new RefusedFile(`refused: ${kindOf(stats)}, not a regular file; customization files must be regular files`);
  if (stats.size > MAX_CUSTOMIZATION_FILE_BYTES) throw new RefusedFile(tooLarge(stats.size));
}

function tooLarge(size: bigint | undefined): string {
  const what = size === undefined ? 'more than' : `${size} bytes,`;
  return `refused: ${what} over the limit of ${MAX_CUSTOMIZATION_FILE_BYTES} bytes (1 MiB, what a ConfigMap holds) for a customization file; not read`;
}

/** An fs error as text without its path (Node's messages name the resolved path, which may be outside the roots). */
function readError(error: unknown): RefusedFile {
  if (error instanceof RefusedFile) return error;
  const code = (error as { code?: unknown })?.code;
  return new RefusedFile(`cannot read: ${typeof code === 'string' ? code : String((error as Error)?.message ?? error)}`);
}

/** Reads `file` as above; throws RefusedFile with the reason. */
export async function readCustomizationFile(file: FoundFile): Promise<Buffer> {
  try {
    const real = await realpath(file.path);
    const rootReal = file.root === undefined ? undefined : await realpath(file.root);
    if (rootReal !== undefined && !isInside(real, rootReal)) throw new RefusedFile(OUTSIDE_ROOT);
    return await readResolved(real, rootReal);
  } catch (error) {
    throw readError(error);
  }
}

/**
 * Reads `real`, a path realpath gave inside `rootReal`, allowing for its having been swapped since: the
 * open follows no link at `real` itself, and the file opened must still be what `real` names, with `real`
 * still resolving inside the root (a folder on the way swapped for a link out). Exported for tests.
 */
export async function readResolved(real: string, rootReal: string | undefined): Promise<Buffer> {
  try {
    const handle = await open(real, OPEN_FLAGS | constants.O_NOFOLLOW).catch(refuseLink);
    try {
      const opened = await handle.stat({ bigint: true });
      checkOpened(opened);
      checkSame(opened, await stat(real, { bigint: true }));
      if (rootReal !== undefined && !isInside(await realpath(real), rootReal)) throw new RefusedFile(OUTSIDE_ROOT);
      const buffer = Buffer.allocUnsafe(MAX_CUSTOMIZATION_FILE_BYTES + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > MAX_CUSTOMIZATION_FILE_BYTES) throw new RefusedFile(tooLarge(undefined));
      return Buffer.from(buffer.subarray(0, length));
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw readError(error);
  }
}

/** The same, synchronously, for one-shot CLI commands (`check`) that have nothing else to serve meanwhile. */
export function readCustomizationFileSync(file: FoundFile): Buffer {
  try {
    const real = realpathSync(file.path);
    const rootReal = file.root === undefined ? undefined : realpathSync(file.root);
    if (rootReal !== undefined && !isInside(real, rootReal)) throw new RefusedFile(OUTSIDE_ROOT);
    return readResolvedSync(real, rootReal);
  } catch (error) {
    throw readError(error);
  }
}

/** readResolved, synchronously. */
export function readResolvedSync(real: string, rootReal: string | undefined): Buffer {
  try {
    let fd: number;
    try {
      fd = openSync(real, OPEN_FLAGS | constants.O_NOFOLLOW);
    } catch (error) {
      return refuseLink(error);
    }
    try {
      const opened = fstatSync(fd, { bigint: true });
      checkOpened(opened);
      checkSame(opened, statSync(real, { bigint: true }));
      if (rootReal !== undefined && !isInside(realpathSync(real), rootReal)) throw new RefusedFile(OUTSIDE_ROOT);
      const buffer = Buffer.allocUnsafe(MAX_CUSTOMIZATION_FILE_BYTES + 1);
      let length = 0;
      while (length < buffer.length) {
        const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > MAX_CUSTOMIZATION_FILE_BYTES) throw new RefusedFile(tooLarge(undefined));
      return Buffer.from(buffer.subarray(0, length));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw readError(error);
  }
}
