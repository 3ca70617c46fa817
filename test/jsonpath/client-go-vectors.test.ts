// client-go's own util/jsonpath/jsonpath_test.go vectors, on data as encoding/json decodes it.
// Where client-go's test uses Go structs, the data here is the equivalent JSON: struct fields print
// in declaration order, JSON maps in sorted key order, so those expectations are adapted and say so.

import { describe, expect, it } from 'vitest';
import { executeJsonPath, JsonPathExecError } from '../../src/jsonpath/index.ts';

type Case = [name: string, template: string, data: unknown, expected: string];

function runCases(cases: Case[], allowMissingKeys = false) {
  it.each(cases)('%s: %s', (_name, template, data, expected) => {
    expect(executeJsonPath(template, data, { allowMissingKeys })).toBe(expected);
  });
}

function runErrorCases(cases: Array<[name: string, template: string, data: unknown, message: string]>, allowMissingKeys = false) {
  it.each(cases)('%s: %s', (_name, template, data, message) => {
    let caught: unknown;
    try {
      executeJsonPath(template, data, { allowMissingKeys });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JsonPathExecError);
    expect((caught as Error).message).toBe(message);
  });
}

describe('TestTypesInput', () => {
  const types = {
    bools: [true, false, true, false],
    integers: [1, 2, 3, 4],
    floats: [1.0, 2.2, 3.3, 4.0],
    strings: ['one', 'two', 'three', 'four'],
    interfaces: [true, 'one', 1, 1.1],
    maps: [
      { name: 'one', value: 1 },
      { name: 'two', value: 2.02 },
      { name: 'three', value: 3.03 },
      { name: 'four', value: 4.04 },
    ],
  };
  runCases([
    ['boolSlice', '{ .bools }', types, '[true,false,true,false]'],
    ['boolSliceIndex', '{ .bools[0] }', types, 'true'],
    ['boolSliceIndex', '{ .bools[-1] }', types, 'false'],
    ['boolSubSlice', '{ .bools[0:2] }', types, 'true false'],
    ['boolSubSliceFirst2', '{ .bools[:2] }', types, 'true false'],
    ['boolSubSliceStep2', '{ .bools[:4:2] }', types, 'true true'],
    ['integerSlice', '{ .integers }', types, '[1,2,3,4]'],
    ['integerSliceIndex', '{ .integers[0] }', types, '1'],
    ['integerSliceIndexReverse', '{ .integers[-2] }', types, '3'],
    ['integerSubSliceFirst2', '{ .integers[0:2] }', types, '1 2'],
    ['integerSubSliceFirst2Alt', '{ .integers[:2] }', types, '1 2'],
    ['integerSubSliceStep2', '{ .integers[:4:2] }', types, '1 3'],
    ['floatSlice', '{ .floats }', types, '[1,2.2,3.3,4]'],
    ['floatSliceIndex', '{ .floats[0] }', types, '1'],
    ['floatSliceIndexReverse', '{ .floats[-2] }', types, '3.3'],
    ['floatSubSliceFirst2', '{ .floats[0:2] }', types, '1 2.2'],
    ['floatSubSliceFirst2Alt', '{ .floats[:2] }', types, '1 2.2'],
    ['floatSubSliceStep2', '{ .floats[:4:2] }', types, '1 3.3'],
    ['stringSlice', '{ .strings }', types, '["one","two","three","four"]'],
    ['stringSliceIndex', '{ .strings[0] }', types, 'one'],
    ['stringSliceIndexReverse', '{ .strings[-2] }', types, 'three'],
    ['stringSubSliceFirst2', '{ .strings[0:2] }', types, 'one two'],
    ['stringSubSliceFirst2Alt', '{ .strings[:2] }', types, 'one two'],
    ['stringSubSliceStep2', '{ .strings[:4:2] }', types, 'one three'],
    ['interfaceSlice', '{ .interfaces }', types, '[true,"one",1,1.1]'],
    ['interfaceSliceIndex', '{ .interfaces[0] }', types, 'true'],
    ['interfaceSliceIndexReverse', '{ .interfaces[-2] }', types, '1'],
    ['interfaceSubSliceFirst2', '{ .interfaces[0:2] }', types, 'true one'],
    ['interfaceSubSliceFirst2Alt', '{ .interfaces[:2] }', types, 'true one'],
    ['interfaceSubSliceStep2', '{ .interfaces[:4:2] }', types, 'true 1'],
    ['mapSlice', '{ .maps }', types, '[{"name":"one","value":1},{"name":"two","value":2.02},{"name":"three","value":3.03},{"name":"four","value":4.04}]'],
    ['mapSliceIndex', '{ .maps[0] }', types, '{"name":"one","value":1}'],
    ['mapSliceIndexReverse', '{ .maps[-2] }', types, '{"name":"three","value":3.03}'],
    ['mapSubSliceFirst2', '{ .maps[0:2] }', types, '{"name":"one","value":1} {"name":"two","value":2.02}'],
    ['mapSubSliceFirst2Alt', '{ .maps[:2] }', types, '{"name":"one","value":1} {"name":"two","value":2.02}'],
    ['mapSubSliceStepOdd', '{ .maps[::2] }', types, '{"name":"one","value":1} {"name":"three","value":3.03}'],
    ['mapSubSliceStepEven', '{ .maps[1::2] }', types, '{"name":"two","value":2.02} {"name":"four","value":4.04}'],
  ]);
});

describe('TestStructInput (store as JSON; struct field order becomes sorted key order)', () => {
  const store = {
    Name: 'jsonpath',
    Book: [
      { Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centurey', Price: 8.95 },
      { Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99 },
      { Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Price: 8.99 },
    ],
    Bicycle: [
      { Color: 'red', Price: 19.95, IsNew: true },
      { Color: 'green', Price: 20.01, IsNew: false },
    ],
    Labels: { engieer: 10, 'web/html': 15, 'k8s-app': 20 },
    Employees: { jason: 'manager', dan: 'clerk' },
  };
  runCases([
    ['plain', 'hello jsonpath', null, 'hello jsonpath'],
    ['recursive', '{..}', [1, 2, 3], '[1,2,3]'],
    ['filter (float literal: JSON numbers are float64)', '{[?(@<5.0)]}', [2, 6, 3, 7], '2 3'],
    ['quote', '{"{"}', null, '{'],
    ['union', '{[1,3,4]}', [0, 1, 2, 3, 4], '1 3 4'],
    ['array', '{[0:2]}', ['Monday', 'Tudesday'], 'Monday Tudesday'],
    ['variable', 'hello {.Name}', store, 'hello jsonpath'],
    ['dict/', '{$.Labels.web/html}', store, '15'],
    ['dict/', '{$.Employees.jason}', store, 'manager'],
    ['dict/', '{$.Employees.dan}', store, 'clerk'],
    ['dict-', '{.Labels.k8s-app}', store, '20'],
    ['nest', '{.Bicycle[*].Color}', store, 'red green'],
    ['allarray', '{.Book[*].Author}', store, 'Nigel Rees Evelyn Waugh Herman Melville'],
    [
      'allfields (map values in sorted key order: Color, IsNew, Price)',
      '{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}',
      store,
      '{red true 19.95} {green false 20.01} ',
    ],
    ['recurfields', '{..Price}', store, '19.95 20.01 8.95 12.99 8.99'],
    ['recurdotfields', '{...Price}', store, '19.95 20.01 8.95 12.99 8.99'],
    ['allstructsSlice', '{.Bicycle}', store, '[{"Color":"red","IsNew":true,"Price":19.95},{"Color":"green","IsNew":false,"Price":20.01}]'],
    ['allstructs', '{range .Bicycle[*]}{ @ }{ " " }{end}', store, '{"Color":"red","IsNew":true,"Price":19.95} {"Color":"green","IsNew":false,"Price":20.01} '],
    ['lastarray', '{.Book[-1:]}', store, '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}'],
    ['recurarray', '{..Book[2]}', store, '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}'],
    ['bool', '{.Bicycle[?(@.IsNew==true)]}', store, '{"Color":"red","IsNew":true,"Price":19.95}'],
  ]);

  describe('missing keys allowed', () => {
    runCases(
      [
        ['nonexistent field', '{.hello}', store, ''],
        ['nonexistent field 2', 'before-{.hello}after', store, 'before-after'],
      ],
      true,
    );
  });

  describe('failures', () => {
    runErrorCases([
      ['invalid identifier', '{hello}', store, 'unrecognized identifier hello'],
      ['nonexistent field', '{.hello}', store, 'hello is not found'],
      ['invalid array (a JSON map is map[string]interface {})', '{.Labels[0]}', store, 'map[string]interface {} is not array or slice'],
      ['invalid filter operator', '{.Book[?(@.Price<>10.0)]}', store, 'unrecognized filter operator <>'],
      ['redundant end', '{range .Labels.*}{@}{end}{end}', store, 'not in range, nothing to end'],
    ]);
  });
});

describe('TestJSONInput', () => {
  const points = JSON.parse(`[
    {"id": "i1", "x":4, "y":-5},
    {"id": "i2", "x":-2, "y":-5, "z":1},
    {"id": "i3", "x":  8, "y":  3 },
    {"id": "i4", "x": -6, "y": -1 },
    {"id": "i5", "x":  0, "y":  2, "z": 1 },
    {"id": "i6", "x":  1, "y":  4 }
  ]`);
  runCases([
    ['exists filter', '{[?(@.z)].id}', points, 'i2 i5'],
    ['bracket key', "{[0]['id']}", points, 'i1'],
  ]);
});

const nodesData = JSON.parse(`{
  "kind": "List",
  "items":[
    {"kind":"None","metadata":{"name":"127.0.0.1","labels":{"kubernetes.io/hostname":"127.0.0.1"}},
     "status":{"capacity":{"cpu":"4"},"ready": true,"addresses":[{"type": "LegacyHostIP", "address":"127.0.0.1"}]}},
    {"kind":"None","metadata":{"name":"127.0.0.2","labels":{"kubernetes.io/hostname":"127.0.0.2"}},
     "status":{"capacity":{"cpu":"8"},"ready": false,"addresses":[{"type": "LegacyHostIP", "address":"127.0.0.2"},{"type": "another", "address":"127.0.0.3"}]}}
  ],
  "users":[{"name": "myself","user": {}},{"name": "e2e","user": {"username": "admin", "password": "secret"}}]
}`);

describe('TestKubernetes', () => {
  runCases([
    ['range item', '{range .items[*]}{.metadata.name}, {end}{.kind}', nodesData, '127.0.0.1, 127.0.0.2, List'],
    ['range item with quote', '{range .items[*]}{.metadata.name}{"\\t"}{end}', nodesData, '127.0.0.1\t127.0.0.2\t'],
    ['range addresss', '{.items[*].status.addresses[*].address}', nodesData, '127.0.0.1 127.0.0.2 127.0.0.3'],
    ['double range', '{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}', nodesData, '127.0.0.1, 127.0.0.2, 127.0.0.3, '],
    ['item name', '{.items[*].metadata.name}', nodesData, '127.0.0.1 127.0.0.2'],
    ['union nodes capacity', "{.items[*]['metadata.name', 'status.capacity']}", nodesData, '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'],
    ['range nodes capacity', '{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}', nodesData, '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '],
    ['user password', '{.users[?(@.name=="e2e")].user.password}', nodesData, 'secret'],
    ['hostname', '{.items[0].metadata.labels.kubernetes\\.io/hostname}', nodesData, '127.0.0.1'],
    ['hostname filter', '{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', nodesData, 'None'],
    ['bool item', '{.items[?(@..ready==true)].metadata.name}', nodesData, '127.0.0.1'],
    ['recursive name (Go order is random; here sorted keys: items before users)', '{..name}', nodesData, '127.0.0.1 127.0.0.2 myself e2e'],
  ]);
});

describe('TestEmptyRange (missing keys allowed)', () => {
  const emptyList = { items: [] };
  runCases(
    [
      ['empty range', '{range .items[*]}{.metadata.name}{end}', emptyList, ''],
      ['empty nested range', '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}', emptyList, ''],
    ],
    true,
  );
});

describe('TestNestedRanges', () => {
  const data = {
    items: [
      {
        metadata: { name: 'pod1' },
        spec: {
          containers: [
            { name: 'foo', another: [{ name: 'value1' }, { name: 'value2' }] },
            { name: 'bar', another: [{ name: 'value1' }, { name: 'value2' }] },
          ],
        },
      },
      { metadata: { name: 'pod2' }, spec: { containers: [{ name: 'baz', another: [{ name: 'value1' }, { name: 'value2' }] }] } },
    ],
  };
  runCases([
    [
      'nested range with a trailing newline',
      '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}',
      data,
      'pod1:foo,bar,+pod2:baz,+',
    ],
    [
      'nested range with a trailing character within another nested range with a trailing newline',
      '{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}',
      data,
      'pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#',
    ],
    [
      'two nested ranges at the same level with a trailing newline',
      '{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}',
      data,
      'pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n',
    ],
  ]);
});

describe('TestFilterPartialMatchesSometimesMissingAnnotations (issues.k8s.io/45546)', () => {
  const data = {
    kind: 'List',
    items: [
      { kind: 'Pod', metadata: { name: 'pod1', annotations: { color: 'blue' } } },
      { kind: 'Pod', metadata: { name: 'pod2' } },
      { kind: 'Pod', metadata: { name: 'pod3', annotations: { color: 'green' } } },
      { kind: 'Pod', metadata: { name: 'pod4', annotations: { color: 'blue' } } },
    ],
  };
  const template = '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}';
  describe('missing keys allowed', () => runCases([['tolerates items without annotations', template, data, 'pod1 pod4']], true));
  describe('missing keys are errors (Karmada)', () => runErrorCases([['fails on the item without annotations', template, data, 'annotations is not found']]));
});

const containers = (count: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  spec: { containers: Array.from({ length: count }, (_, i) => ({ image: 'radial/busyboxplus:curl', name: `fake${i}` })) },
});

describe('TestNegativeIndex', () => {
  const data = containers(4);
  runCases([
    ['containers[0]', '{.spec.containers[0].name}', data, 'fake0'],
    ['containers[0:0] is empty', '{.spec.containers[0:0].name}', data, ''],
    ['containers[0:-1] equals containers[0:3]', '{.spec.containers[0:-1].name}', data, 'fake0 fake1 fake2'],
    ['containers[-1]', '{.spec.containers[-1].name}', data, 'fake3'],
    ['containers[-1:]', '{.spec.containers[-1:].name}', data, 'fake3'],
    ['containers[-2]', '{.spec.containers[-2].name}', data, 'fake2'],
    ['containers[-2:]', '{.spec.containers[-2:].name}', data, 'fake2 fake3'],
    ['containers[-3]', '{.spec.containers[-3].name}', data, 'fake1'],
    ['containers[-4]', '{.spec.containers[-4].name}', data, 'fake0'],
    ['containers[-4:]', '{.spec.containers[-4:].name}', data, 'fake0 fake1 fake2 fake3'],
    ['containers[5:5] is empty', '{.spec.containers[5:5].name}', data, ''],
    ['containers[-5:-5] is empty', '{.spec.containers[-5:-5].name}', data, ''],
  ]);
  runErrorCases([
    ['containers[-1:0]', '{.spec.containers[-1:0].name}', data, 'starting index 3 is greater than ending index 0'],
    ['containers[-5] is out of bounds', '{.spec.containers[-5].name}', data, 'array index out of bounds: index -1, length 4'],
    ['containers[3:1]', '{.spec.containers[3:1].name}', data, 'starting index 3 is greater than ending index 1'],
    ['containers[-1:-2] equals [3:2]', '{.spec.containers[-1:-2].name}', data, 'starting index 3 is greater than ending index 2'],
  ]);
});

describe('TestRunningPodsJSONPathOutput (missing keys allowed)', () => {
  const data = {
    kind: 'List',
    items: [
      { kind: 'Pod', metadata: { name: 'pod1' }, status: { phase: 'Running' } },
      { kind: 'Pod', metadata: { name: 'pod2' }, status: { phase: 'Running' } },
      { kind: 'Pod', metadata: { name: 'pod3' }, status: { phase: 'Running' } },
      { resourceVersion: '' },
    ],
  };
  runCases(
    [
      [
        'range over pods without selecting the last one',
        '{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\\n"}{end}',
        data,
        'pod1 is Running\npod2 is Running\npod3 is Running\n',
      ],
    ],
    true,
  );
});

describe('TestStep', () => {
  const data = containers(6);
  runCases([
    ['containers[0:] equals [0:6:1]', '{.spec.containers[0:].name}', data, 'fake0 fake1 fake2 fake3 fake4 fake5'],
    ['containers[0:6:] equals [0:6:1]', '{.spec.containers[0:6:].name}', data, 'fake0 fake1 fake2 fake3 fake4 fake5'],
    ['containers[0:6:1]', '{.spec.containers[0:6:1].name}', data, 'fake0 fake1 fake2 fake3 fake4 fake5'],
    ['containers[1:4:2]', '{.spec.containers[1:4:2].name}', data, 'fake1 fake3'],
    ['containers[1:4:3]', '{.spec.containers[1:4:3].name}', data, 'fake1'],
    ['containers[1:4:4]', '{.spec.containers[1:4:4].name}', data, 'fake1'],
    ['containers[0:6:2]', '{.spec.containers[0:6:2].name}', data, 'fake0 fake2 fake4'],
    ['containers[0:6:3]', '{.spec.containers[0:6:3].name}', data, 'fake0 fake3'],
    ['containers[0:6:5]', '{.spec.containers[0:6:5].name}', data, 'fake0 fake5'],
    ['containers[0:6:6]', '{.spec.containers[0:6:6].name}', data, 'fake0'],
  ]);
  runErrorCases([
    ['containers[0:6:0]', '{.spec.containers[0:6:0].name}', data, 'step must be > 0'],
    ['containers[0:6:-1]', '{.spec.containers[0:6:-1].name}', data, 'step must be > 0'],
  ]);
});
