import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { run as runReplay } from '../../src/cli/replay.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { decodePatch, encodePatch } from '../../src/protocol/patch.ts';
import { compareResponses } from '../../src/record/response-comparison.ts';
import { listExchangeFiles, readExchange, writeExchange, type RecordedExchange } from '../../src/record/format.ts';
import { redactExchange } from '../../src/record/redact.ts';
import { inProcessTarget, replayFile, replayFiles, urlTarget } from '../../src/record/replay.ts';
import { startLocalServer } from '../../src/server/local.ts';

const loaded = await createRegistry();
const target = inProcessTarget(loaded.registry);
afterAll(() => loaded.close());

const FIXTURES = 'test/fixtures';
const REVISE = `${FIXTURES}/apps.kruise.io/CloneSet/ReviseReplica-partition-split.json`;
const RETAIN = `${FIXTURES}/apps.kruise.io/CloneSet/Retain-member-owned-fields.json`;
const REPLICA = `${FIXTURES}/apps.kruise.io/CloneSet/InterpretReplica-sidecar-aware-requirements.json`;
const DEPENDENCY = `${FIXTURES}/argoproj.io/Workflow/InterpretDependency-full-walk.json`;
const REFUSED = `${FIXTURES}/apps.kruise.io/CloneSet/InterpretReplica-invalid-replicas.json`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'replay-test-'));
  return () => rm(dir, { recursive: true, force: true });
});

/** Copies a fixture into the temp folder with its recorded response edited. */
async function edited(fixture: string, edit: (exchange: RecordedExchange) => void, name = 'edited.json'): Promise<string> {
  const exchange = await readExchange(fixture);
  edit(exchange);
  const file = join(dir, name);
  await writeExchange(file, exchange);
  return file;
}

const response = (exchange: RecordedExchange) => exchange.response!.response!;

describe('replayFile in process', () => {
  it('reports a fixture the build still answers the same way as unchanged', async () => {
    const result = await replayFile(REVISE, target);
    expect(result).toMatchObject({ status: 'unchanged', differences: [], subject: 'apps.kruise.io/v1alpha1 CloneSet ReviseReplica shop/web' });
  });

  it('reports a changed patch by the field it changes in the resulting object', async () => {
    const file = await edited(RETAIN, (e) => {
      const ops = decodePatch(response(e).patch!);
      response(e).patch = encodePatch([...ops.filter((op) => op.path !== '/spec/replicas'), { op: 'replace', path: '/spec/replicas', value: 9 }]);
    });
    const result = await replayFile(file, target);
    expect(result.status).toBe('changed');
    expect(result.differences).toEqual([{ path: 'object.spec.replicas', old: 9, new: 8 }]);
  });

  it('treats a differently written patch with the same result as unchanged (op order, add vs replace)', async () => {
    const file = await edited(RETAIN, (e) => {
      const ops = decodePatch(response(e).patch!).reverse();
      response(e).patch = encodePatch(ops.map((op) => (op.op === 'replace' ? { ...op, op: 'add' as const } : op)));
    });
    expect((await replayFile(file, target)).status).toBe('unchanged');
  });

  it('compares requirement quantities by value', async () => {
    const same = await edited(
      REPLICA,
      (e) => {
        response(e).replicaRequirements!.resourceRequest = { memory: '671088640', cpu: '0.7' };
      },
      'same.json',
    );
    expect(await replayFile(same, target)).toMatchObject({ status: 'unchanged' });
    const different = await edited(
      REPLICA,
      (e) => {
        response(e).replicaRequirements!.resourceRequest!.cpu = '0.75';
      },
      'different.json',
    );
    const result = await replayFile(different, target);
    expect(result.differences).toEqual([{ path: 'replicaRequirements.resourceRequest.cpu', old: '0.75', new: '700m' }]);
  });

  it('compares dependencies as a set: order and duplicates do not matter, a missing one does', async () => {
    const reordered = await edited(
      DEPENDENCY,
      (e) => {
        const deps = response(e).dependencies!;
        response(e).dependencies = [...deps.reverse(), deps[0]!];
      },
      'reordered.json',
    );
    expect(await replayFile(reordered, target)).toMatchObject({ status: 'unchanged' });
    let dropped: unknown;
    const missing = await edited(
      DEPENDENCY,
      (e) => {
        dropped = response(e).dependencies!.splice(2, 1)[0];
      },
      'missing.json',
    );
    const result = await replayFile(missing, target);
    expect(result.differences).toEqual([{ path: 'dependencies[]', old: undefined, new: dropped }]);
  });

  it('compares refusals by code and message', async () => {
    expect((await replayFile(REFUSED, target)).status).toBe('unchanged');
    const file = await edited(REFUSED, (e) => {
      response(e).status!.message = 'an older wording';
    });
    const result = await replayFile(file, target);
    expect(result.differences).toHaveLength(1);
    expect(result.differences[0]).toMatchObject({ path: 'status.message', old: 'an older wording' });
  });

  it('reports a fixture without a recorded response as changed, and --update fills it in', async () => {
    const file = await edited(REVISE, (e) => {
      e.response = null;
    });
    expect((await replayFile(file, target)).status).toBe('changed');
    expect((await replayFile(file, target, { update: true })).status).toBe('updated');
    expect((await readExchange(file)).response).toEqual((await readExchange(REVISE)).response);
    expect((await replayFile(file, target)).status).toBe('unchanged');
  });

  it('reports a file that is not a recorded exchange as an error', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"request": {}}');
    expect(await replayFile(file, target)).toMatchObject({ status: 'error' });
  });
});

describe('redacted recordings', () => {
  it('replay unchanged when the interpreter does not depend on the redacted values', async () => {
    const exchange = await readExchange(REVISE);
    const object = exchange.request.request!.object as Record<string, any>;
    object.spec.template.spec.containers[0].env = [{ name: 'DB_PASSWORD', value: 'hunter2' }];
    // What the server answered for the unredacted request:
    exchange.response = await target.send(exchange.request);
    const file = join(dir, 'redacted.json');
    await writeExchange(file, redactExchange(exchange));
    expect(await readFile(file, 'utf8')).not.toContain('hunter2');
    expect(await replayFile(file, target)).toMatchObject({ status: 'unchanged', redactedValues: 1 });
  });
});

describe('replay --url against a running server', () => {
  it('gives the same verdicts over HTTPS as in process', async () => {
    const server = await startLocalServer(loaded.registry);
    const remote = urlTarget(server.url, { ca: server.ca, timeoutSeconds: 10 });
    try {
      const changed = await edited(REPLICA, (e) => {
        response(e).replicas = 3;
      });
      const summary = await replayFiles([REVISE, DEPENDENCY, REFUSED, changed], remote);
      expect(summary.results.map((r) => r.status)).toEqual(['unchanged', 'unchanged', 'unchanged', 'changed']);
      expect(summary.results[3]!.differences).toEqual([{ path: 'replicas', old: 3, new: 10 }]);
    } finally {
      remote.close();
      await server.close();
    }
  });

  it('reports an unreachable server as an error per file', async () => {
    const remote = urlTarget('https://127.0.0.1:1/interpret', { timeoutSeconds: 2 });
    try {
      expect(await replayFile(REVISE, remote)).toMatchObject({ status: 'error' });
    } finally {
      remote.close();
    }
  });
});

describe('the replay command', () => {
  async function runCli(args: string[]) {
    let out = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    try {
      return { code: await runReplay(args), out };
    } finally {
      spy.mockRestore();
    }
  }

  it('prints each change as path: old → new, ends with the counts and exits 1', async () => {
    await mkdir(join(dir, 'rec'));
    await copyFile(REVISE, join(dir, 'rec', 'a.json'));
    await copyFile(DEPENDENCY, join(dir, 'rec', 'b.json'));
    const exchange = await readExchange(REPLICA);
    response(exchange).replicas = 4;
    await writeExchange(join(dir, 'rec', 'c.json'), exchange);
    const { code, out } = await runCli([join(dir, 'rec')]);
    expect(code).toBe(1);
    expect(out).toContain(
      `CHANGED ${join(dir, 'rec', 'c.json')} (apps.kruise.io/v1alpha1 CloneSet InterpretReplica shop/web): 1 difference(s)\n  replicas: 4 → 10\n`,
    );
    expect(out.trimEnd().split('\n').at(-1)).toBe('2 unchanged, 1 changed');
  });

  it('exits 0 when nothing changed, and -o json gives the structured report', async () => {
    const { code, out } = await runCli(['-o', 'json', REVISE, DEPENDENCY]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      unchanged: 2,
      changed: 0,
      errors: 0,
      results: [
        { file: REVISE, status: 'unchanged' },
        { file: DEPENDENCY, status: 'unchanged' },
      ],
    });
  });

  it('--update rewrites changed responses, after which the files replay unchanged', async () => {
    const exchange = await readExchange(REPLICA);
    response(exchange).replicas = 4;
    const file = join(dir, 'c.json');
    await writeExchange(file, exchange);
    expect((await runCli(['--update', file])).out).toContain('0 unchanged, 1 updated');
    expect(await runCli([file])).toMatchObject({ code: 0 });
  });
});

describe('compareResponses', () => {
  const request = {
    uid: 'u',
    kind: { group: 'g', version: 'v1', kind: 'K' },
    operation: 'InterpretReplica',
    object: { apiVersion: 'g/v1', kind: 'K' },
    replicas: 0,
  };
  const envelope = (r: object) => ({ response: { uid: 'u', successful: true, ...r } });

  it('ignores key order and reports nested paths', () => {
    expect(
      compareResponses(
        request,
        envelope({ replicas: 1, replicaRequirements: { namespace: 'a', priorityClassName: 'x' } }),
        envelope({ replicaRequirements: { priorityClassName: 'x', namespace: 'a' }, replicas: 1 }),
      ),
    ).toEqual([]);
    expect(
      compareResponses(
        request,
        envelope({ replicas: 1, replicaRequirements: { nodeClaim: { nodeSelector: { 'kubernetes.io/os': 'linux' } } } }),
        envelope({ replicas: 1, replicaRequirements: { nodeClaim: { nodeSelector: { 'kubernetes.io/os': 'windows' } } } }),
      ),
    ).toEqual([{ path: 'replicaRequirements.nodeClaim.nodeSelector["kubernetes.io/os"]', old: 'linux', new: 'windows' }]);
  });

  it('does not treat numbers outside resource lists as quantities', () => {
    expect(
      compareResponses({ ...request, operation: 'InterpretStatus' }, envelope({ rawStatus: { version: '1' } }), envelope({ rawStatus: { version: '1.0' } })),
    ).toHaveLength(1);
    expect(
      compareResponses(
        { ...request, operation: 'InterpretStatus' },
        envelope({ rawStatus: { capacity: { storage: '1Gi' } } }),
        envelope({ rawStatus: { capacity: { storage: '1073741824' } } }),
      ),
    ).toEqual([]);
  });

  it('reports a success that became a refusal', () => {
    const refused = { response: { uid: 'u', successful: false, status: { code: 500, message: 'boom' } } };
    const diffs = compareResponses(request, envelope({ replicas: 1 }), refused);
    expect(diffs).toContainEqual({ path: 'successful', old: true, new: false });
    expect(diffs).toContainEqual({ path: 'status', old: undefined, new: { code: 500, message: 'boom' } });
  });
});

describe('replay --customizations: what an edited Lua customization changes', () => {
  const ric = (body: string) => `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          ${body}
        end
`;

  it('reports the answers the edit changes and leaves the others alone', async () => {
    const current = join(dir, 'current');
    const edited = join(dir, 'edited');
    await mkdir(current);
    await mkdir(edited);
    await writeFile(join(current, 'widget.yaml'), ric('return obj.spec.size, nil'));
    await writeFile(join(edited, 'widget.yaml'), ric('if obj.spec.size > 3 then return 3, nil end return obj.spec.size, nil'));

    // Record two answers of the current customization, as serve --record would.
    const recording = await createRegistry({ customizations: [current] });
    try {
      for (const size of [2, 5]) {
        const context = {
          apiVersion: 'config.karmada.io/v1alpha1',
          kind: 'ResourceInterpreterContext',
          request: {
            uid: `widget-${size}`,
            kind: { group: 'example.io', version: 'v1', kind: 'Widget' },
            name: `w${size}`,
            namespace: 'default',
            operation: 'InterpretReplica',
            object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: `w${size}`, namespace: 'default' }, spec: { size } },
            replicas: 0,
          },
        };
        const answer = await inProcessTarget(recording.registry).send(context);
        expect(answer.response).toMatchObject({ successful: true, replicas: size });
        await writeExchange(join(dir, `widget-${size}.json`), { request: context, response: answer });
      }
    } finally {
      recording.close();
    }

    const files = [join(dir, 'widget-2.json'), join(dir, 'widget-5.json')];
    let out = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    let sameCode: number;
    let editedCode: number;
    let sameOut: string;
    try {
      sameCode = await runReplay([...files, '--customizations', current]);
      sameOut = out;
      out = '';
      editedCode = await runReplay([...files, '--customizations', edited]);
    } finally {
      spy.mockRestore();
    }
    expect(sameCode).toBe(0);
    expect(sameOut.trim()).toBe('2 unchanged, 0 changed');
    expect(editedCode).toBe(1);
    expect(out).toContain('(example.io/v1 Widget InterpretReplica default/w5): 1 difference(s)\n  replicas: 5 → 3\n');
    expect(out).not.toContain('w2');
    expect(out.trim().split('\n').at(-1)).toBe('1 unchanged, 1 changed');
  });
});

describe('listing recorded files', () => {
  it('skips a link loop and a dangling link with a note each, walks a linked-back folder once, and keeps every readable file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'replay-list-'));
    try {
      await mkdir(join(root, 'a'));
      await writeFile(join(root, 'a', 'one.json'), '{}');
      await writeFile(join(root, 'two.json'), '{}');
      await symlink('.', join(root, 'a', 'loop')); // a -> itself
      await symlink(join(root, 'missing'), join(root, 'dangling.json'));
      await symlink('self-loop', join(root, 'self-loop')); // ELOOP
      const skipped: Array<[string, string]> = [];
      const files = await listExchangeFiles([root], (path, reason) => skipped.push([path.slice(root.length + 1), reason]));
      expect(files.map((f) => f.slice(root.length + 1))).toEqual(['a/one.json', 'two.json']);
      expect(skipped).toEqual([
        ['a/loop', 'a folder already walked (a link back into the tree)'],
        ['dangling.json', 'ENOENT'],
        ['self-loop', 'ELOOP'],
      ]);
      // A path given that cannot be read is still an error: a typo is not skipped silently.
      await expect(listExchangeFiles([join(root, 'nope')])).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
