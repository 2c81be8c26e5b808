// The per-entity-set part of the generated client: a key type for composite keys and a
// resource class whose methods are exactly the set's REST operations.
import type {
  ClassDeclarationStructure,
  MethodDeclarationStructure,
  OptionalKind,
  ParameterDeclarationStructure,
  TypeAliasDeclarationStructure,
} from 'ts-morph';
import { StructureKind } from 'ts-morph';
import { schemaNames } from './json-schema.js';
import { toPascalCase } from './naming.js';
import type { NavigationResource, SetResource } from './rest-surface.js';

/** Method names of a resource class; a navigation of the same name gets a `related` prefix. */
const RESOURCE_METHODS = ['list', 'pages', 'get', 'create', 'update', 'delete', 'constructor'];

/** List queries (equality filters typed) come from types.ts, as `<Set>ListQuery`. */
function listQueryType(resource: SetResource): string {
  return `T.${schemaNames.listQuery(resource.set)}`;
}

export function resourceClassName(resource: SetResource): string {
  return `${resource.pascalName}Resource`;
}

function keyTypeName(resource: SetResource): string {
  return `${resource.pascalName}Key`;
}

/** Composite keys are addressed by an object holding the key properties of the read type. */
export function keyType(resource: SetResource): TypeAliasDeclarationStructure | undefined {
  if (resource.keys.length < 2) return undefined;
  return {
    kind: StructureKind.TypeAlias,
    name: keyTypeName(resource),
    isExported: true,
    docs: [`Key of ${resource.aTypeName} of ${resource.set.name}.`],
    type: `Pick<T.${resource.typeName}, ${resource.keys.map((k) => `'${k.restName}'`).join(' | ')}>`,
  };
}

export function resourceClass(resource: SetResource): ClassDeclarationStructure {
  const item = `T.${resource.typeName}`;
  const ids = resource.operationIds;
  const key = keyParameter(resource);
  const itemPath = itemPathExpression(resource);
  const methods: OptionalKind<MethodDeclarationStructure>[] = [];
  if (ids.list) {
    const list = `T.${schemaNames.list(resource.type)}`;
    const selected = `T.${schemaNames.selectionList(resource.type)}`;
    const query = listQueryType(resource);
    methods.push(
      {
        name: 'list',
        overloads: [
          {
            docs: [`One page of ${resource.set.name} (GET ${resource.collectionPath}), each item with only the selected properties.`],
            parameters: [{ name: 'query', type: withSelect(query) }],
            returnType: `Promise<${selected}>`,
          },
          {
            docs: [`One page of ${resource.set.name} (GET ${resource.collectionPath}).`],
            parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
            returnType: `Promise<${list}>`,
          },
        ],
        parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
        returnType: `Promise<${list} | ${selected}>`,
        statements: `return this.#transport.value({ method: 'GET', path: '${resource.collectionPath}', query });`,
      },
      {
        name: 'pages',
        overloads: [
          {
            docs: [`Every page of ${resource.set.name}, following \`next\`, each item with only the selected properties.`],
            parameters: [{ name: 'query', type: withSelect(query) }],
            returnType: `AsyncGenerator<${selected}, void, undefined>`,
          },
          {
            docs: [`Every page of ${resource.set.name}, following \`next\`.`],
            parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
            returnType: `AsyncGenerator<${list}, void, undefined>`,
          },
        ],
        parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
        returnType: `AsyncGenerator<${list} | ${selected}, void, undefined>`,
        statements: `return this.#transport.pages('${resource.collectionPath}', query);`,
      },
    );
  }
  const selection = `T.${schemaNames.selection(resource.type)}`;
  methods.push({
    name: 'get',
    overloads: [
      {
        docs: [`One ${resource.typeName} by key with only the selected properties; \`null\` when unchanged since \`ifNoneMatch\` (304).`],
        parameters: [key, { name: 'options', type: withSelect('ConditionalGetOptions') }],
        returnType: `Promise<${selection} | null>`,
      },
      {
        docs: [`One ${resource.typeName} by key (GET ${resource.itemPath}); \`null\` when unchanged since \`ifNoneMatch\` (304).`],
        parameters: [key, { name: 'options', type: 'ConditionalGetOptions' }],
        returnType: `Promise<${item} | null>`,
      },
      {
        docs: [`One ${resource.typeName} by key (GET ${resource.itemPath}) with only the selected properties.`],
        parameters: [key, { name: 'options', type: withSelect('GetOptions') }],
        returnType: `Promise<${selection}>`,
      },
      {
        docs: [`One ${resource.typeName} by key (GET ${resource.itemPath}).`],
        parameters: [key, { name: 'options', type: 'GetOptions', hasQuestionToken: true }],
        returnType: `Promise<${item}>`,
      },
    ],
    parameters: [key, { name: 'options', type: 'GetOptions | ConditionalGetOptions', hasQuestionToken: true }],
    returnType: `Promise<${item} | ${selection} | null>`,
    statements: `return this.#transport.getItem(${itemPath}, options);`,
  });
  if (ids.create) {
    methods.push({
      name: 'create',
      docs: [`Creates ${resource.aTypeName} (POST ${resource.collectionPath}).`],
      parameters: [{ name: 'body', type: `T.${schemaNames.create(resource.type)}` }],
      returnType: `Promise<${item}>`,
      statements: `return this.#transport.value({ method: 'POST', path: '${resource.collectionPath}', body });`,
    });
  }
  if (ids.update) {
    methods.push({
      name: 'update',
      docs: [`Changes the given properties (JSON merge patch; PATCH ${resource.itemPath}).`],
      parameters: [
        key,
        { name: 'patch', type: `T.${schemaNames.update(resource.type)}` },
        { name: 'options', type: 'WriteOptions', hasQuestionToken: true },
      ],
      returnType: `Promise<${item}>`,
      statements:
        `return this.#transport.value({ method: 'PATCH', path: ${itemPath}, body: patch, ` +
        `contentType: 'application/merge-patch+json', headers: { 'if-match': options?.ifMatch } });`,
    });
  }
  if (ids.delete) {
    methods.push({
      name: 'delete',
      docs: [`Deletes ${resource.aTypeName} (DELETE ${resource.itemPath}).`],
      parameters: [key, { name: 'options', type: 'WriteOptions', hasQuestionToken: true }],
      returnType: 'Promise<void>',
      isAsync: true,
      statements: `await this.#transport.value({ method: 'DELETE', path: ${itemPath}, headers: { 'if-match': options?.ifMatch } });`,
    });
  }
  for (const navigation of resource.navigations) methods.push(navigationMethod(resource, navigation, key, itemPath));
  return {
    kind: StructureKind.Class,
    name: resourceClassName(resource),
    isExported: true,
    docs: [`The ${resource.set.name} at \`${resource.collectionPath}\`.`],
    properties: [{ name: '#transport', type: 'Transport', isReadonly: true }],
    ctors: [
      {
        parameters: [{ name: 'transport', type: 'Transport' }],
        statements: 'this.#transport = transport;',
      },
    ],
    methods,
  };
}

function navigationMethod(
  resource: SetResource,
  navigation: NavigationResource,
  key: OptionalKind<ParameterDeclarationStructure>,
  itemPath: string,
): OptionalKind<MethodDeclarationStructure> {
  const restName = navigation.navigation.restName;
  const name = RESOURCE_METHODS.includes(restName) ? `related${toPascalCase(restName)}` : restName;
  const path = `${itemPath} + '/${navigation.segment}'`;
  const target = navigation.target;
  if (navigation.isCollection) {
    const list = `T.${schemaNames.list(target.type)}`;
    const selected = `T.${schemaNames.selectionList(target.type)}`;
    const query = listQueryType(target);
    const docs = `One page of the ${target.set.name} of ${resource.aTypeName} (GET ${navigation.path})`;
    return {
      name,
      overloads: [
        { docs: [`${docs}, each item with only the selected properties.`], parameters: [key, { name: 'query', type: withSelect(query) }], returnType: `Promise<${selected}>` },
        { docs: [`${docs}.`], parameters: [key, { name: 'query', type: query, hasQuestionToken: true }], returnType: `Promise<${list}>` },
      ],
      parameters: [key, { name: 'query', type: query, hasQuestionToken: true }],
      returnType: `Promise<${list} | ${selected}>`,
      statements: `return this.#transport.value({ method: 'GET', path: ${path}, query });`,
    };
  }
  const item = `T.${target.typeName}`;
  const selection = `T.${schemaNames.selection(target.type)}`;
  const docs = `The ${target.typeName} of ${resource.aTypeName} (GET ${navigation.path})`;
  return {
    name,
    overloads: [
      {
        docs: [`${docs} with only the selected properties; a 404 ProblemError when there is none.`],
        parameters: [key, { name: 'options', type: withSelect('GetOptions') }],
        returnType: `Promise<${selection}>`,
      },
      {
        docs: [`${docs}; a 404 ProblemError when there is none.`],
        parameters: [key, { name: 'options', type: 'GetOptions', hasQuestionToken: true }],
        returnType: `Promise<${item}>`,
      },
    ],
    parameters: [key, { name: 'options', type: 'GetOptions', hasQuestionToken: true }],
    returnType: `Promise<${item} | ${selection}>`,
    statements: `return this.#transport.value({ method: 'GET', path: ${path}, query: options });`,
  };
}

/** Options that certainly carry `select`: the overloads that return the Selection types. */
function withSelect(type: string): string {
  return `${type} & { readonly select: string }`;
}

/** The key is always the parameter `key`: a key property's own name could clash with `options`. */
function keyParameter(resource: SetResource): OptionalKind<ParameterDeclarationStructure> {
  const [single] = resource.keys;
  if (resource.keys.length === 1 && single) return { name: 'key', type: `T.${resource.typeName}['${single.restName}']` };
  return { name: 'key', type: keyTypeName(resource) };
}

/** `'/projects' + keySegment(key)`, or one keySegment per member of a composite key. */
function itemPathExpression(resource: SetResource): string {
  const segments =
    resource.keys.length === 1 ? ['keySegment(key)'] : resource.keys.map((k) => `keySegment(key.${k.restName})`);
  return [`'${resource.collectionPath}'`, ...segments].join(' + ');
}
