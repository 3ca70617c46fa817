import { describe, expect, it } from 'vitest';
import { parseCustomizationFile } from '../../src/customizations/parse.ts';

// Indentation and folding as in Karmada's thirdparty customizations.yaml files.
const KARMADA_STYLE = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-cloneset
spec:
  target:
    apiVersion: apps.kruise.io/v1alpha1
    kind: CloneSet
  customizations:
    replicaResource:
      luaScript: >
        local kube = require("kube")
        function GetReplicas(obj)
          replica = obj.spec.replicas
          requirement = kube.accuratePodRequirements(obj.spec.template)
          return replica, requirement
        end
    statusReflection:
      luaScript: >
        function ReflectStatus(observedObj)
          status = {}
          if observedObj == nil or observedObj.status == nil then
            return status
          end
          status.replicas = observedObj.status.replicas
          return status
        end

        function Unused()
          return nil
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.readyReplicas == observedObj.spec.replicas
        end
`;

describe('parseCustomizationFile', () => {
  it('folds `luaScript: >` as YAML 1.2: base-indented lines join with a space, more-indented lines keep their newlines', () => {
    const [doc] = parseCustomizationFile(KARMADA_STYLE, 'cloneset.yaml');
    expect(doc.error).toBeUndefined();
    const scripts = doc.customization!.scripts;
    expect(scripts.replicaResource).toBe(
      'local kube = require("kube") function GetReplicas(obj)\n' +
        '  replica = obj.spec.replicas\n' +
        '  requirement = kube.accuratePodRequirements(obj.spec.template)\n' +
        '  return replica, requirement\n' +
        'end\n',
    );
    // An empty line between base-indented lines becomes exactly one newline.
    expect(scripts.statusReflection).toBe(
      'function ReflectStatus(observedObj)\n' +
        '  status = {}\n' +
        '  if observedObj == nil or observedObj.status == nil then\n' +
        '    return status\n' +
        '  end\n' +
        '  status.replicas = observedObj.status.replicas\n' +
        '  return status\n' +
        'end\n' +
        'function Unused()\n' +
        '  return nil\n' +
        'end\n',
    );
    expect(scripts.healthInterpretation).toBe(
      'function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas == observedObj.spec.replicas\nend\n',
    );
    expect(doc.customization).toMatchObject({
      name: 'declarative-configuration-cloneset',
      target: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
      file: 'cloneset.yaml',
      document: 1,
    });
  });

  it('reads every document, skips empty ones, and numbers documents from 1', () => {
    const text = `---\n${KARMADA_STYLE}---\n---\n${KARMADA_STYLE.replace('declarative-configuration-cloneset', 'second')}`;
    const docs = parseCustomizationFile(text, 'f.yaml');
    expect(docs.map((d) => [d.document, d.name])).toEqual([
      [1, 'declarative-configuration-cloneset'],
      [3, 'second'],
    ]);
  });

  it('reads JSON, including a v1 List of RICs', () => {
    const ric = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'json-ric' },
      spec: { target: { apiVersion: 'example.io/v1', kind: 'Widget' }, customizations: { retention: { luaScript: 'x' } } },
    };
    const [single] = parseCustomizationFile(JSON.stringify(ric, null, '\t'), 'w.json');
    expect(single.customization?.scripts).toEqual({ retention: 'x' });
    const list = parseCustomizationFile(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [ric, ric] }), 'l.json');
    expect(list).toHaveLength(2);
    expect(list.every((d) => d.customization?.name === 'json-ric')).toBe(true);
  });

  it('treats a present but empty luaScript as unset; metadata is free-form', () => {
    const text = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: a, labels: {x: y}, annotations: {note: any}}
spec:
  target: {apiVersion: v1, kind: Pod}
  customizations:
    retention: {luaScript: ""}
    healthInterpretation: {}
`;
    const [doc] = parseCustomizationFile(text, 'a.yaml');
    expect(doc.customization?.scripts).toEqual({ retention: '', healthInterpretation: '' });
  });

  it('refuses fields the CRD does not declare, as kubectl apply (strict validation) does, and keeps the target', () => {
    // karmada-io/karmada charts/karmada/_crds/bases/config/config.karmada.io_resourceinterpretercustomizations.yaml
    const text = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: a}
spec:
  target: {apiVersion: v1, kind: Pod}
  futureField: 1
  customizations:
    componentRevision: {luaScript: "function ReviseComponents() end"}
    healthInterpretation: {luaScript: "function InterpretHealth() return true end"}
status: {}
`;
    const [doc] = parseCustomizationFile(text, 'a.yaml');
    expect(doc.customization).toBeUndefined();
    expect(doc.error).toBe('unknown field "spec.futureField"; unknown field "spec.customizations.componentRevision"; unknown field "status"');
    expect(doc.target).toEqual({ apiVersion: 'v1', kind: 'Pod' });
    expect(doc.operations).toEqual(['InterpretHealth']);
  });

  it('skips objects of other kinds, but not a RIC with a wrong apiVersion or a misspelled kind', () => {
    const [skipped, version, kind] = parseCustomizationFile(
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n---\n' +
        'apiVersion: config.karmada.io/v1\nkind: ResourceInterpreterCustomization\nmetadata: {name: v}\n---\n' +
        'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomizaton\nmetadata: {name: k}\n',
      'mixed.yaml',
    );
    expect(skipped).toEqual({
      document: 1,
      skipped: 'skipped: not a ResourceInterpreterCustomization, got kustomize.config.k8s.io/v1beta1, Kind=Kustomization',
    });
    expect(version.error).toBe('not a ResourceInterpreterCustomization: apiVersion must be config.karmada.io/v1alpha1, got config.karmada.io/v1');
    expect(kind.error).toBe(
      'not a ResourceInterpreterCustomization, got config.karmada.io/v1alpha1, Kind=ResourceInterpreterCustomizaton (did you mean kind: ResourceInterpreterCustomization?)',
    );
  });

  it.each([
    ['metadata: {name: p}\n', 'not a ResourceInterpreterCustomization: apiVersion and kind must be set, got /, Kind='],
    [
      'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: n}\nspec: {target: {apiVersion: v1}}\n',
      'spec.target.kind is not set',
    ],
    [
      'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: n}\nspec: {target: {kind: Pod}}\n',
      'spec.target.apiVersion is not set',
    ],
    [
      'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nspec: {target: {apiVersion: v1, kind: Pod}}\n',
      'metadata.name is not set',
    ],
    [
      'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: n}\nspec: {target: {apiVersion: v1, kind: Pod}, customizations: {retention: {luaScript: 3}}}\n',
      'spec.customizations.retention.luaScript is not a string (got number)',
    ],
    ['- a\n- b\n', 'not an object (got a list)'],
  ])('rejects %j with a clear message', (text, message) => {
    const [doc] = parseCustomizationFile(text, 'bad.yaml');
    expect(doc.customization).toBeUndefined();
    expect(doc.error).toBe(message);
  });

  it('reports YAML syntax errors per document', () => {
    const docs = parseCustomizationFile(`${KARMADA_STYLE}---\nspec: [\n`, 'broken.yaml');
    expect(docs[0].customization).toBeDefined();
    expect(docs[1].document).toBe(2);
    // The offending line is quoted, with its position counted from the file's start.
    expect(docs[1].error).toBe('invalid YAML: line 38: Flow sequence in block collection must be sufficiently indented and end with a ]: "spec: ["');
  });
});
