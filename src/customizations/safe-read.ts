// Reading one customization file without trusting what is at its path (decision 0014): the path is
// resolved and must stay inside its configured root, the file is opened without blocking (a FIFO cannot
// hold the reader), the open descriptor is checked (a regular file no larger than a ConfigMap) and at most
// MAX_CUSTOMIZATION_FILE_BYTES + 1 bytes are ever read, so a file that grows after the check is refused too.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
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

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Refuses what fstat says of the open file: only regular files no larger than the bound are read. */
function checkOpened(stats: Stats): void {
  if (!stats.isFile()) throw new RefusedFile(`refused: ${kindOf(stats)}, not a regular file; customization files must be regular files`);
  if (stats.size > MAX_CUSTOMIZATION_FILE_BYTES) throw new RefusedFile(tooLarge(stats.size));
}

function tooLarge(size: number | undefined): string {
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
    if (file.root !== undefined && !isInside(real, await realpath(file.root))) throw new RefusedFile(OUTSIDE_ROOT);
    const handle = await open(real, OPEN_FLAGS);
    try {
      checkOpened(await handle.stat());
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
    if (file.root !== undefined && !isInside(real, realpathSync(file.root))) throw new RefusedFile(OUTSIDE_ROOT);
    const fd = openSync(real, OPEN_FLAGS);
    try {
      checkOpened(fstatSync(fd));
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
