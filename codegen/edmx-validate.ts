// Cross-reference checks over a freshly read Model: every name declared once, every reference
// (types, associations, roles, sets) resolving, and REST names that do not collide.
import type { ComplexType, EntityType, FunctionImport, Model, Property } from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import { EdmxError } from './errors.js';

export function checkUnique(names: readonly string[], what: (name: string) => string): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new EdmxError('EDMX_DUPLICATE_NAME', `${what(name)} is declared more than once`);
    seen.add(name);
  }
}

/** Different EDM names may map to one REST name (`OrderID` and `OrderId`): the REST face could not tell them apart. */
function checkUniqueRest(pairs: readonly (readonly [edm: string, rest: string])[], where: string): void {
  const seen = new Map<string, string>();
  for (const [edm, rest] of pairs) {
    const other = seen.get(rest);
    if (other !== undefined) {
      throw new EdmxError('EDMX_DUPLICATE_NAME', `${where}: ${other} and ${edm} both map to the REST name "${rest}"`);
    }
    seen.set(rest, edm);
  }
}

export function validateModel(model: Model): void {
  checkUnique(
    [...model.entityTypes, ...model.complexTypes, ...model.associations].map((t) => t.fullName),
    (name) => `type or association ${name}`,
  );
  const entityTypes = new Map(model.entityTypes.map((t) => [t.fullName, t]));
  const complexTypes = new Map(model.complexTypes.map((t) => [t.fullName, t]));
  const associations = new Map(model.associations.map((a) => [a.fullName, a]));

  const structured = [
    ...model.entityTypes.map((t) => ({ kind: 'EntityType', type: t, members: [...t.properties, ...t.navigationProperties] })),
    ...model.complexTypes.map((t) => ({ kind: 'ComplexType', type: t, members: t.properties })),
  ];
  for (const { kind, type, members } of structured) {
    checkUnique(members.map((m) => m.name), (name) => `${kind} ${type.fullName}: member ${name}`);
    checkUniqueRest(members.map((m) => [m.name, m.restName]), `${kind} ${type.fullName}`);
    for (const property of type.properties) checkPropertyType(property, `Property ${type.fullName}/${property.name}`, complexTypes);
  }
  checkComplexCycles(model.complexTypes, complexTypes);

  for (const association of model.associations) {
    const where = `Association ${association.fullName}`;
    for (const end of association.ends) {
      if (!entityTypes.has(end.type)) {
        throw new EdmxError('EDMX_UNKNOWN_TYPE', `${where} End ${end.role}: Type="${end.type}" is not a declared EntityType`);
      }
    }
    const constraint = association.referentialConstraint;
    if (!constraint) continue;
    for (const side of [constraint.principal, constraint.dependent]) {
      const endType = entityTypes.get(association.ends.find((e) => e.role === side.role)?.type ?? '');
      for (const name of side.properties) {
        if (endType && !endType.properties.some((p) => p.name === name)) {
          throw new EdmxError('EDMX_UNKNOWN_PROPERTY', `${where} ReferentialConstraint: ${name} is not a property of ${endType.fullName}`);
        }
      }
    }
  }

  for (const type of model.entityTypes) {
    for (const nav of type.navigationProperties) {
      const from = associations.get(nav.relationship)?.ends.find((e) => e.role === nav.fromRole);
      if (from && from.type !== type.fullName) {
        throw new EdmxError('EDMX_UNKNOWN_ROLE', `NavigationProperty ${type.fullName}/${nav.name}: FromRole "${nav.fromRole}" is the end of ${from.type}, not of ${type.fullName}`);
      }
    }
  }

  const container = `EntityContainer ${model.containerName}`;
  checkUnique(
    [...model.entitySets, ...model.associationSets, ...model.functionImports].map((s) => s.name),
    (name) => `${container}: ${name}`,
  );
  checkUniqueRest(model.entitySets.map((s) => [s.name, s.restPath]), container);
  checkUniqueRest(model.functionImports.map((f) => [f.name, f.restName]), container);

  const sets = new Map(model.entitySets.map((s) => [s.name, s]));
  for (const set of model.entitySets) {
    if (!entityTypes.has(set.entityType)) {
      throw new EdmxError('EDMX_UNKNOWN_TYPE', `EntitySet ${set.name}: EntityType="${set.entityType}" is not a declared EntityType`);
    }
  }
  for (const associationSet of model.associationSets) {
    const where = `AssociationSet ${associationSet.name}`;
    const association = associations.get(associationSet.association);
    if (!association) {
      throw new EdmxError('EDMX_UNKNOWN_ASSOCIATION', `${where}: Association="${associationSet.association}" is not a declared Association`);
    }
    const [first, second] = associationSet.ends;
    if (first.role === second.role) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where}: both ends have Role "${first.role}"`);
    for (const end of associationSet.ends) {
      const associationEnd = association.ends.find((e) => e.role === end.role);
      if (!associationEnd) throw new EdmxError('EDMX_UNKNOWN_ROLE', `${where}: Role "${end.role}" is not a role of Association ${association.fullName}`);
      const set = sets.get(end.entitySet);
      if (!set) throw new EdmxError('EDMX_UNKNOWN_ENTITY_SET', `${where} End ${end.role}: EntitySet "${end.entitySet}" is not declared`);
      if (set.entityType !== associationEnd.type) {
        throw new EdmxError('EDMX_BAD_VALUE', `${where} End ${end.role}: EntitySet ${set.name} holds ${set.entityType}, the role needs ${associationEnd.type}`);
      }
    }
  }

  const operations = new Map<string, string>();
  for (const fn of model.functionImports) {
    checkFunctionImport(fn, entityTypes, complexTypes, sets);
    const operation = `${fn.rest.method} ${fn.rest.path}`;
    const other = operations.get(operation);
    if (other !== undefined) throw new EdmxError('EDMX_DUPLICATE_NAME', `FunctionImport ${fn.name}: REST operation "${operation}" is also used by ${other}`);
    operations.set(operation, fn.name);
    const clash = model.entitySets.find((s) => fn.rest.path === `/${s.restPath}` || fn.rest.path.startsWith(`/${s.restPath}/`));
    if (clash) throw new EdmxError('EDMX_DUPLICATE_NAME', `FunctionImport ${fn.name}: REST path ${fn.rest.path} overlaps entity set ${clash.name}`);
  }
}

function checkPropertyType(property: Property, where: string, complexTypes: ReadonlyMap<string, ComplexType>): void {
  if (isEdmPrimitiveType(property.type) || complexTypes.has(property.type)) return;
  throw new EdmxError('EDMX_UNKNOWN_TYPE', `${where}: Type="${property.type}" is neither an Edm primitive type nor a declared ComplexType`);
}

/** A complex type that contains itself, directly or not, has no finite value. */
function checkComplexCycles(types: readonly ComplexType[], byName: ReadonlyMap<string, ComplexType>): void {
  const visit = (type: ComplexType, path: readonly string[]): void => {
    for (const property of type.properties) {
      const inner = byName.get(property.type);
      if (!inner) continue;
      if (path.includes(inner.fullName)) {
        throw new EdmxError('EDMX_UNSUPPORTED', `ComplexType ${inner.fullName} contains itself (${[...path, inner.fullName].join(' -> ')})`);
      }
      visit(inner, [...path, inner.fullName]);
    }
  };
  for (const type of types) visit(type, [type.fullName]);
}

function checkFunctionImport(
  fn: FunctionImport,
  entityTypes: ReadonlyMap<string, EntityType>,
  complexTypes: ReadonlyMap<string, ComplexType>,
  sets: ReadonlyMap<string, { readonly entityType: string }>,
): void {
  const where = `FunctionImport ${fn.name}`;
  checkUnique(fn.parameters.map((p) => p.name), (name) => `${where}: Parameter ${name}`);
  checkUniqueRest(fn.parameters.map((p) => [p.name, p.restName]), where);
  const returnType = fn.returnType;
  const element = returnType && (/^Collection\((.+)\)$/.exec(returnType)?.[1] ?? returnType);
  if (element !== undefined && !isEdmPrimitiveType(element) && !entityTypes.has(element) && !complexTypes.has(element)) {
    throw new EdmxError('EDMX_UNKNOWN_TYPE', `${where}: ReturnType="${returnType}" is not an Edm primitive type or a declared type`);
  }
  const returnsEntities = element !== undefined && entityTypes.has(element);
  if (fn.entitySet === undefined) {
    if (returnsEntities) throw new EdmxError('EDMX_MISSING_ATTRIBUTE', `${where}: EntitySet is required when ReturnType is an entity type`);
    return;
  }
  const set = sets.get(fn.entitySet);
  if (!set) throw new EdmxError('EDMX_UNKNOWN_ENTITY_SET', `${where}: EntitySet="${fn.entitySet}" is not declared`);
  if (!returnsEntities) throw new EdmxError('EDMX_BAD_VALUE', `${where}: EntitySet is only allowed when ReturnType is an entity type`);
  if (set.entityType !== element) {
    throw new EdmxError('EDMX_BAD_VALUE', `${where}: EntitySet ${fn.entitySet} holds ${set.entityType}, not ${element}`);
  }
}
