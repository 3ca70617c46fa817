// V8 flags for a process that serves requests. Set at start, before the first request, from the code
// rather than the command line so that every way of starting `serve` (npm start, the image, the
// benchmark, node:cluster workers) gets them.
//
// Allocation-site pretenuring: when many objects from one allocation site survive a young-generation
// collection (a burst, a slow Lua call, a request that waited), V8 decides to allocate that site's
// objects in the old generation from then on. Our per-request objects (parsed bodies, fengari's Lua
// tables and values) then land there and die there, and every young object they point to is kept
// alive by those dead old ones through each scavenge and promoted too. In the Lua server this was a
// lasting mode: the 50-cluster AggregateStatus at 650 req/s promoted 1.4-1.5 MB per scavenge instead of
// ~0.25 MB, with scavenges of 2.1-2.7 ms instead of ~0.7 and p99 of 10-16 ms instead of ~5
// (bench/README.md, "Memory"). Nothing a webhook keeps for long is allocated in bulk (compiled scripts,
// the registry), so the heuristic has nothing to win here.
import { setFlagsFromString } from 'node:v8';

export function tuneGarbageCollectionForServing(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
