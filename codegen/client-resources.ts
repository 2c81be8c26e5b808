// The per-entity-set part of the generated client: a key type for composite keys and a
// resource class whose methods are exactly the set's REST operations.
import type {
  ClassDeclarationStructure,
  MethodDeclarationOverloadStructure,
  MethodDeclarationStructure,
  OptionalKind,
  ParameterDeclarationStructure,
  TypeAliasDeclarationStructure,
} from 'ts-morph';
import { StructureKind } from 'ts-morph';
import { schemaNames } from './json-schema.js';
import { toPascalCase } from './naming.js';
import type { NavigationResource, SetResource } from './rest-surface.js';
import { BATCH_CREATE_MAX_ITEMS, selectionPathOf } from './rest-surface.js';

/** Method names of a resource class; a navigation of the same name gets a `related` prefix. */
const RESOURCE_METHODS = ['list', 'pages', 'get', 'create', 'createAll', 'update', 'delete', 'constructor'];

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
    const path = `readPath('${resource.collectionPath}', query)`;
    const plain = `GET ${resource.collectionPath}`;
    const selecting = `GET ${selectionPathOf(resource.collectionPath)}`;
    methods.push(
      {
        name: 'list',
        overloads: readOverloads([], query, {
          selected: [`One page of ${resource.set.name} (${selecting}), each item with only the selected properties.`, `Promise<${selected}>`],
          full: [`One page of ${resource.set.name} (${plain}), each item whole.`, `Promise<${list}>`],
          either: [`One page of ${resource.set.name}: ${plain}, or ${selecting} when \`select\` is given.`, `Promise<${list} | ${selected}>`],
        }),
        parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
        returnType: `Promise<${list} | ${selected}>`,
        statements: `return this.#transport.value({ method: 'GET', path: ${path}, query });`,
      },
      {
        name: 'pages',
        overloads: readOverloads([], query, {
          selected: [`Every page of ${resource.set.name} (${selecting}), following \`next\`, each item with only the selected properties.`, `AsyncGenerator<${selected}, void, undefined>`],
          full: [`Every page of ${resource.set.name} (${plain}), following \`next\`.`, `AsyncGenerator<${list}, void, undefined>`],
          either: [`Every page of ${resource.set.name}, following \`next\`: ${plain}, or ${selecting} when \`select\` is given.`, `AsyncGenerator<${list} | ${selected}, void, undefined>`],
        }),
        parameters: [{ name: 'query', type: query, hasQuestionToken: true }],
        returnType: `AsyncGenerator<${list} | ${selected}, void, undefined>`,
        statements: `return this.#transport.pages(${path}, query);`,
      },
    );
  }
  const selection = `T.${schemaNames.selection(resource.type)}`;
  const plainGet = `GET ${resource.itemPath}`;
  const selectingGet = `GET ${selectionPathOf(resource.itemPath)}`;
  const unchanged = '`null` when unchanged since `ifNoneMatch` (304)';
  methods.push({
    name: 'get',
    overloads: [
      ...readOverloads([key], 'ConditionalGetOptions', {
        selected: [`One ${resource.typeName} by key (${selectingGet}) with only the selected properties; ${unchanged}.`, `Promise<${selection} | null>`],
        full: [`One ${resource.typeName} by key (${plainGet}), whole; ${unchanged}.`, `Promise<${item} | null>`],
        either: [`One ${resource.typeName} by key: ${plainGet}, or ${selectingGet} when \`select\` is given; ${unchanged}.`, `Promise<${item} | ${selection} | null>`],
      }),
      ...readOverloads([key], 'GetOptions', {
        selected: [`One ${resource.typeName} by key (${selectingGet}) with only the selected properties.`, `Promise<${selection}>`],
        full: [`One ${resource.typeName} by key (${plainGet}), whole.`, `Promise<${item}>`],
        either: [`One ${resource.typeName} by key: ${plainGet}, or ${selectingGet} when \`select\` is given.`, `Promise<${item} | ${selection}>`],
      }),
    ],
    parameters: [key, { name: 'options', type: 'GetOptions | ConditionalGetOptions', hasQuestionToken: true }],
    returnType: `Promise<${item} | ${selection} | null>`,
    statements: `return this.#transport.getItem(readPath(${itemPath}, options), options);`,
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
  if (ids.batchCreate) {
    methods.push({
      name: 'createAll',
      docs: [
        `Creates every ${resource.typeName} of \`items\` (1 to ${BATCH_CREATE_MAX_ITEMS}), all or none (POST ${resource.batchPath}): ` +
          'the created ones in the order sent. When the service refuses one, nothing is created and the promise ' +
          'rejects with a BatchItemError whose `index` is that item\'s position in `items`.',
      ],
      parameters: [{ name: 'items', type: `readonly T.${schemaNames.create(resource.type)}[]` }],
      returnType: `Promise<${item}[]>`,
      statements: `return this.#transport.createAll('${resource.batchPath}', items);`,
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
  const plain = `GET ${navigation.path}`;
  const selecting = `GET ${selectionPathOf(navigation.path)}`;
  if (navigation.isCollection) {
    const list = `T.${schemaNames.list(target.type)}`;
    const selected = `T.${schemaNames.selectionList(target.type)}`;
    const query = listQueryType(target);
    const docs = `One page of the ${target.set.name} of ${resource.aTypeName}`;
    return {
      name,
      overloads: readOverloads([key], query, {
        selected: [`${docs} (${selecting}), each item with only the selected properties.`, `Promise<${selected}>`],
        full: [`${docs} (${plain}), each item whole.`, `Promise<${list}>`],
        either: [`${docs}: ${plain}, or ${selecting} when \`select\` is given.`, `Promise<${list} | ${selected}>`],
      }),
      parameters: [key, { name: 'query', type: query, hasQuestionToken: true }],
      returnType: `Promise<${list} | ${selected}>`,
      statements: `return this.#transport.value({ method: 'GET', path: readPath(${path}, query), query });`,
    };
  }
  const item = `T.${target.typeName}`;
  const selection = `T.${schemaNames.selection(target.type)}`;
  const docs = `The ${target.typeName} of ${resource.aTypeName}`;
  const none = 'a 404 ProblemError when there is none';
  return {
    name,
    overloads: readOverloads([key], 'GetOptions', {
      selected: [`${docs} (${selecting}) with only the selected properties; ${none}.`, `Promise<${selection}>`],
      full: [`${docs} (${plain}), whole; ${none}.`, `Promise<${item}>`],
      either: [`${docs}: ${plain}, or ${selecting} when \`select\` is given; ${none}.`, `Promise<${item} | ${selection}>`],
    }),
    parameters: [key, { name: 'options', type: 'GetOptions', hasQuestionToken: true }],
    returnType: `Promise<${item} | ${selection}>`,
    statements: `return this.#transport.value({ method: 'GET', path: readPath(${path}, options), query: options });`,
  };
}

/** An overload: its doc line and its return type. */
type ReadOverload = readonly [doc: string, returnType: string];

/**
 * The overloads of a read whose options may carry `select`: with `select` it goes to the
 * `:select` twin and answers the Selection type; without, it answers the whole entity (every
 * property required, as the document says); a `select` that may be undefined gets both.
 */
function readOverloads(
  leading: readonly OptionalKind<ParameterDeclarationStructure>[],
  optionsType: string,
  shapes: { readonly selected: ReadOverload; readonly full: ReadOverload; readonly either?: ReadOverload },
): OptionalKind<MethodDeclarationOverloadStructure>[] {
  const name = leading.length === 0 ? 'query' : 'options';
  // Conditional options (ifNoneMatch) are required: they change the answer to include null.
  const isOptional = optionsType !== 'ConditionalGetOptions';
  const overload = ([doc, returnType]: ReadOverload, type: string, hasQuestionToken: boolean): OptionalKind<MethodDeclarationOverloadStructure> => ({
    docs: [doc],
    parameters: [...leading, { name, type, hasQuestionToken }],
    returnType,
  });
  return [
    overload(shapes.selected, withSelect(optionsType), false),
    overload(shapes.full, `${optionsType} & { readonly select?: undefined }`, isOptional),
    ...(shapes.either ? [overload(shapes.either, optionsType, false)] : []),
  ];
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
