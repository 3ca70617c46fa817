// Bounds on one InterpretDependency answer as a whole (the scripts of several customizations of a kind
// are merged into one answer), so that no answer makes the main thread build and send tens of MB.
// Real objects name a handful of dependencies (their ConfigMaps, Secrets, PVCs, ServiceAccount), at most
// a few hundred; every one is an object Karmada then propagates. An object's dependencies come from the
// object itself, which etcd keeps under 1.5 MiB: 10,000 references, or 4 MiB of their JSON, are far
// above anything real.

export const MAX_DEPENDENCIES = 10_000;
export const MAX_DEPENDENCY_BYTES = 4 * 1024 * 1024;

/** Why `count` dependencies of `bytes` characters of JSON are past the bounds of one answer, or undefined. */
export function dependencyBoundProblem(count: number, bytes: number): string | undefined {
  if (count > MAX_DEPENDENCIES) return `${count} dependencies, over the limit of ${MAX_DEPENDENCIES} per answer`;
  if (bytes > MAX_DEPENDENCY_BYTES) return `dependencies of ${bytes} bytes of JSON, over the limit of ${MAX_DEPENDENCY_BYTES} per answer`;
  return undefined;
}
