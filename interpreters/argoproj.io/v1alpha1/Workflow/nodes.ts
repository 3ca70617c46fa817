// The node map of a Workflow's status, and Argo's "suspended" built on it.
//
// A large workflow stores its nodes compressed in `status.compressedNodes` (workflow/packer: the node
// map's JSON, compressed, base64) or offloaded to Argo's database (`status.offloadNodeStatusVersion`,
// not visible here). The compression is gzip, zstd or brotli, told apart by magic bytes as
// util/file/fileutil.go `DecompressContent` does; node:zlib handles all three, with a cap on the output
// so a small string cannot expand without bound.
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import { isJsonObject, type JsonObject } from '../../../../src/interpreter/types.ts';

/** Most bytes `compressedNodes` may expand to: above Argo's own size limit for a whole workflow. */
export const MAX_DECOMPRESSED_NODES_BYTES = 16 * 1024 * 1024;

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

function decompress(data: Buffer): Buffer {
  const options = { maxOutputLength: MAX_DECOMPRESSED_NODES_BYTES };
  if (data.subarray(0, ZSTD_MAGIC.length).equals(ZSTD_MAGIC)) return zstdDecompressSync(data, options);
  if (data.subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC)) return gunzipSync(data, options);
  return brotliDecompressSync(data, options);
}

/**
 * The status's node map: `status.nodes`, else the decoded `status.compressedNodes` (as Argo's packer
 * does when nodes is empty). Undefined when neither is readable (absent, offloaded, corrupt, too large).
 */
export function workflowNodes(status: JsonObject): JsonObject | undefined {
  if (isJsonObject(status.nodes) && Object.keys(status.nodes).length > 0) return status.nodes;
  if (typeof status.compressedNodes === 'string' && status.compressedNodes !== '') {
    try {
      const nodes: unknown = JSON.parse(decompress(Buffer.from(status.compressedNodes, 'base64')).toString('utf8'));
      if (isJsonObject(nodes)) return nodes;
    } catch {
      // Corrupt or above the cap: the nodes are unknown, as if offloaded.
    }
  }
  return isJsonObject(status.nodes) ? status.nodes : undefined;
}

/** NodeStatus.IsActiveSuspendNode: a Suspend node still Running (an approval gate, a `suspend` step waiting). */
function isActiveSuspendNode(node: unknown): boolean {
  return isJsonObject(node) && node.type === 'Suspend' && node.phase === 'Running';
}

/**
 * workflow/util/util.go `IsWorkflowSuspended`: `spec.suspend` is true, or some node is an active Suspend
 * node. With offloaded nodes only `spec.suspend` can be seen.
 */
export function isWorkflowSuspended(spec: JsonObject, nodes: JsonObject | undefined): boolean {
  if (spec.suspend === true) return true;
  if (!nodes) return false;
  for (const node of Object.values(nodes)) if (isActiveSuspendNode(node)) return true;
  return false;
}
