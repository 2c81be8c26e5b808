// client.ts: a typed, fetch-based client of the REST face with no runtime dependency. Types
// come from the generated types.ts; operations from the same RestSurface as openapi.json.
import type { ClassDeclarationStructure, MethodDeclarationStructure, OptionalKind } from 'ts-morph';
import { Project, QuoteKind, StructureKind } from 'ts-morph';
import type { Model } from '../odata/model.js';
import type { Emitter } from './emitter.js';
import { GENERATED_HEADER } from './emitter.js';
import { clientRuntimeSource } from './client-runtime.js';
import { descriptionExamples } from './description-examples.js';
import { FORMAT_SETTINGS } from './format.js';
import { keyType, resourceClass, resourceClassName } from './client-resources.js';
import { tsReturnType } from './client-value-types.js';
import { schemaNames } from './json-schema.js';
import { toRestName } from './naming.js';
import type { FunctionResource, RestSurface } from './rest-surface.js';
import { describeRestSurface } from './rest-surface.js';

export const emitClient: Emitter = (model) => [{ path: 'client.ts', contents: buildClientSource(model) }];

export function buildClientSource(model: Model): string {
  const surface = describeRestSurface(model);
  const project = new Project({ useInMemoryFileSystem: true, manipulationSettings: { quoteKind: QuoteKind.Single } });
  const file = project.createSourceFile('client.ts');
  file.addImportDeclaration({ isTypeOnly: true, namespaceImport: 'T', moduleSpecifier: './types.js' });
  file.addStatements(clientRuntimeSource(descriptionExamples(model, '').select));
  for (const resource of surface.sets) {
    const key = keyType(resource);
    if (key) file.addTypeAlias(key);
  }
  for (const resource of surface.sets) file.addClass(resourceClass(resource));
  file.addClass(rootClass(surface));
  file.addFunction({
    name: 'createClient',
    isExported: true,
    docs: ['A client of the REST face at `options.baseUrl`.'],
    parameters: [{ name: 'options', type: 'ClientOptions' }],
    returnType: 'RestClient',
    statements: 'return new RestClient(options);',
  });
  // Formatted in this fresh project: format.ts's shared project formats a second text under the
  // same file name against the first one's stale snapshot (garbled output), see the report.
  file.formatText(FORMAT_SETTINGS);
  return `// ${GENERATED_HEADER}\n${file.getFullText()}`;
}

function rootClass(surface: RestSurface): ClassDeclarationStructure {
  const members = new Set<string>();
  const claim = (name: string): string => {
    if (members.has(name)) throw new Error(`the generated client would have two members named ${name}`);
    members.add(name);
    return name;
  };
  const sets = surface.sets.map((resource) => ({
    name: claim(toRestName(resource.set.name)),
    className: resourceClassName(resource),
  }));
  return {
    kind: StructureKind.Class,
    name: 'RestClient',
    isExported: true,
    docs: ['The REST face: one member per entity set, one method per service operation.'],
    properties: [
      ...sets.map(({ name, className }) => ({ name, type: className, isReadonly: true })),
      { name: '#transport', type: 'Transport', isReadonly: true },
    ],
    ctors: [
      {
        parameters: [{ name: 'options', type: 'ClientOptions' }],
        statements: [
          'this.#transport = new Transport(options);',
          ...sets.map(({ name, className }) => `this.${name} = new ${className}(this.#transport);`),
        ],
      },
    ],
    methods: surface.functions.map((fn) => functionMethod(fn, claim(fn.function.restName))),
  };
}

function functionMethod(resource: FunctionResource, name: string): OptionalKind<MethodDeclarationStructure> {
  const fn = resource.function;
  const returnType = tsReturnType(resource.returns);
  const hasParameters = fn.parameters.length > 0;
  const isGet = resource.method === 'GET';
  const argument = hasParameters ? (isGet ? ', query: params' : ', body: params') : '';
  const call = `this.#transport.value({ method: '${resource.method}', path: '${resource.path}'${argument} })`;
  const allOptional = fn.parameters.every((p) => p.nullable);
  return {
    name,
    docs: [
      `${resource.method} ${resource.path}: the service operation ${fn.name}.` +
        (resource.returns.kind === 'none' ? '' : ' Rejects with a 404 ProblemError when there is nothing to return.'),
    ],
    parameters: hasParameters
      ? [{ name: 'params', type: `T.${schemaNames.parameters(fn)}`, hasQuestionToken: allOptional }]
      : [],
    returnType: `Promise<${returnType}>`,
    ...(returnType === 'void' ? { isAsync: true, statements: `await ${call};` } : { statements: `return ${call};` }),
  };
}
