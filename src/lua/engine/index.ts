// The Lua engine as the rest of src/lua sees it: fengari's public API, loaded and configured, with
// gopher-lua's `#`, `next` and numbers installed in it, the allocation hooks, and named accessors over its
// objects. Nothing outside engine/ imports fengari or engine/'s other files.
import './numbers.ts';

export {
  guardAllocation,
  lauxlib,
  lua,
  lualib,
  observeStringAllocations,
  setAllocationGuard,
  to_jsstring,
  to_luastring,
  type AllocationGuard,
  type StringAllocationObserver,
} from './fengari.ts';
export { forgetTableCaches } from './gopher-tables.ts';
export * from './tables.ts';
