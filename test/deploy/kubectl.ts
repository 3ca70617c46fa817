// `kubectl kustomize`, for the deploy tests' extra checks where kubectl is installed (it is not part of the
// project's toolchain: those checks are skipped without it, and the tests' own renderers cover the rest).
import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

export const HAVE_KUBECTL = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The objects `kubectl kustomize DIR` builds. */
export function kustomize(dir: string): any[] {
  return parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' })).map((d) => d.toJS());
}
