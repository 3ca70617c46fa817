// Which templates the Argo controller can run, and under which steps/DAG template. A pod's scheduling
// constraints depend on both (workflow/controller/workflowpod.go `addSchedulingConstraints`: the
// template's own value, else the value of its boundary — the steps or DAG template whose step or task
// called it —, else the workflow's), so InterpretReplica needs every (template, boundary) pair.
//
// The walk starts where Argo starts (the entrypoint, the workflow's exit handler and its lifecycle
// hooks, all without a boundary) and follows the steps, tasks, their inline templates, their exit
// handlers and their hooks by template name. Each template's calls are expanded once, so templates that
// call each other in a cycle, or the same template from many steps, cost one visit per call site.
// A call through `templateRef` (or the whole `workflowTemplateRef`) runs a template of another object:
// it is listed without a template, since its own values are unknown but its boundary's still apply.
import { isJsonObject, type JsonObject } from '../../../../src/interpreter/types.ts';
import { asArray, childSteps } from './templates.ts';

type Template = JsonObject;

export interface TemplateCall {
  /** Undefined for a template of another object (templateRef, workflowTemplateRef). */
  template?: Template;
  /** The steps or DAG template that called it; undefined for the entrypoint, exit handler and hooks. */
  boundary?: Template;
}

/** What a step, task or lifecycle hook runs: a template name, an inline template, or a templateRef. */
interface Target {
  name?: unknown;
  inline?: unknown;
  templateRef?: unknown;
}

/** The handlers a step, task or the workflow runs besides its main template: `onExit` and every hook. */
function handlers(holder: Template): Target[] {
  const targets: Target[] = [{ name: holder.onExit }];
  if (isJsonObject(holder.hooks))
    for (const hook of Object.values(holder.hooks)) if (isJsonObject(hook)) targets.push({ name: hook.template, templateRef: hook.templateRef });
  return targets;
}

export function templateCalls(spec: JsonObject): TemplateCall[] {
  const byName = new Map<string, Template>();
  for (const template of asArray(spec.templates)) {
    // Argo's GetTemplateByName returns the first template with the name.
    if (isJsonObject(template) && typeof template.name === 'string' && !byName.has(template.name)) byName.set(template.name, template);
  }
  const named = (name: unknown): Template | undefined => (typeof name === 'string' ? byName.get(name) : undefined);

  const calls: TemplateCall[] = [];
  const boundariesOf = new Map<Template | undefined, Set<Template | undefined>>();
  const expanded = new Set<Template>();
  const record = (template: Template | undefined, boundary: Template | undefined): void => {
    let boundaries = boundariesOf.get(template);
    if (!boundaries) boundariesOf.set(template, (boundaries = new Set()));
    if (boundaries.has(boundary)) return;
    boundaries.add(boundary);
    const entry: TemplateCall = {};
    if (template) entry.template = template;
    if (boundary) entry.boundary = boundary;
    calls.push(entry);
  };
  // With workflowTemplateRef, a name this Workflow does not define may be one of the WorkflowTemplate's.
  const otherObjectHasTemplates = isJsonObject(spec.workflowTemplateRef);
  const call = (target: Target, boundary: Template | undefined): void => {
    if (isJsonObject(target.inline)) record(target.inline, boundary);
    else if (isJsonObject(target.templateRef)) record(undefined, boundary);
    else if (typeof target.name === 'string' && target.name !== '') {
      const template = named(target.name);
      if (template) record(template, boundary);
      else if (otherObjectHasTemplates) record(undefined, boundary);
    }
  };

  // The entrypoint, or — when it is not one of this Workflow's templates (an entrypoint chosen at
  // submission, or one in the WorkflowTemplate of workflowTemplateRef) — every template, since any of
  // them may be the one that runs, and a template of that other object.
  const entrypoint = named(spec.entrypoint);
  if (entrypoint) record(entrypoint, undefined);
  else for (const template of byName.values()) record(template, undefined);
  if (otherObjectHasTemplates && !entrypoint) record(undefined, undefined);
  for (const target of handlers(spec)) call(target, undefined);

  // Breadth first (calls is also the queue), so pods are listed in the order their callers appear.
  for (let next = 0; next < calls.length; next++) {
    const { template } = calls[next]!;
    if (!template || expanded.has(template)) continue;
    expanded.add(template);
    for (const step of childSteps(template)) {
      call({ name: step.template, inline: step.inline, templateRef: step.templateRef }, template);
      for (const target of handlers(step)) call(target, template);
    }
  }
  return calls;
}
