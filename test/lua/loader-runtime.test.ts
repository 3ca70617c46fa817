// The loader on the real fengari runtime: a Karmada-style folded script compiles and runs, and script
// failures reach the dispatcher as InterpreterError 500 with customization, function, line and message.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterpreterError } from '../../src/interpreter/types.ts';
import { loadCustomizations } from '../../src/customizations/loader.ts';
import { LuaRuntime } from '../../src/lua/runtime.ts';

const runtime = new LuaRuntime({ poolSize: 2, timeoutMs: 200 });
afterAll(() => runtime.close());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ric-runtime-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// As Karmada writes them: `luaScript: >`, so `local kube = require("kube")` and the function header
// fold into one line.
const FOLDED = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget-folded
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    replicaResource:
      luaScript: >
        local kube = require("kube")
        function GetReplicas(obj)
          replica = obj.spec.replicas
          requirement = kube.accuratePodRequirements(obj.spec.template)
          return replica, requirement
        end
    healthInterpretation:
      luaScript: >
        function InterpretHealth(observedObj)
          local ready = observedObj.status.readyReplicas
          return ready >= observedObj.spec.replicas
        end
    statusReflection:
      luaScript: >
        function ReflectStatus(observedObj)
          while true do end
        end
`;

const widget = {
  apiVersion: 'example.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec: {
    replicas: 4,
    template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '1Gi' } } }] } },
  },
};

describe('loadCustomizations on the fengari runtime', () => {
  it('runs a folded Karmada-style script', async () => {
    writeFileSync(join(dir, 'widget.yaml'), FOLDED);
    const { interpreters, errors } = await loadCustomizations([dir], { runtime });
    expect(errors).toEqual([]);
    expect(await interpreters[0].getReplicas!(widget)).toEqual({
      replicas: 4,
      requirements: { resourceRequest: { cpu: '100m', memory: '1Gi' } },
    });
  });

  it('reports a Lua error with customization, function and line, and a timeout as a timeout', async () => {
    writeFileSync(join(dir, 'widget.yaml'), FOLDED);
    const [w] = (await loadCustomizations([dir], { runtime })).interpreters;
    const healthError = await Promise.resolve(w.interpretHealth!({ ...widget, status: {} })).catch((e) => e);
    expect(healthError).toBeInstanceOf(InterpreterError);
    expect(healthError.code).toBe(500);
    // A folded (`luaScript: >`) script: the script line as Karmada reports it, and where the script starts in the file.
    expect(healthError.message).toMatch(
      /^customization widget-folded: InterpretHealth: script line 3 \(the script starts at .*widget\.yaml line 20\): attempt to compare .*nil/,
    );

    const timeoutError = await Promise.resolve(w.reflectStatus!(widget)).catch((e) => e);
    expect(timeoutError).toBeInstanceOf(InterpreterError);
    expect(timeoutError.message).toMatch(
      /^customization widget-folded: ReflectStatus: (script line \d+ \(the script starts at .*widget\.yaml line 26\): )?timeout: /,
    );
  });

  it('rejects a file whose script does not compile, with document, field and line', async () => {
    writeFileSync(join(dir, 'widget.yaml'), FOLDED.replace('return ready >= observedObj.spec.replicas', 'return ready >='));
    const { interpreters, errors } = await loadCustomizations([dir], { runtime });
    expect(interpreters).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(
      /^document 1 \(widget-folded\): healthInterpretation \(InterpretHealth\): script line 4 \(the script starts at line 20 of the file\): .*near 'end'/,
    );
  });
});
