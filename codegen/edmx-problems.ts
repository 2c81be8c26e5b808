// How the EDMX reader meets what it does not support. Strict (the default) reads on past a
// problem to find every other one, then fails with all of them at once. Lenient (`codegen
// --lenient`, for the $metadata of services we do not control: V3/V4 elements, SAP quirks) skips
// or maps each construct it cannot take, with one warning each, and then drops what referred to
// a skipped construct (prune), so that everything generated from what is left holds together.
import type { Association, ComplexType, EntityType, Model, NavigationProperty, Property } from '../odata/model.js';
import { isEdmPrimitiveType } from '../odata/model.js';
import { EdmxError } from './errors.js';

export class ReadProblems {
  readonly errors: EdmxError[] = [];
  readonly warnings: string[] = [];
  /** The constructs attempt() skipped. */
  private readonly failed = new Set<string>();

  constructor(readonly lenient: boolean) {}

  /**
   * Reads one construct (`EntityType Shop.Order`); a problem in it is recorded and undefined
   * returned: in lenient reading the construct is skipped, in strict reading the rest is read on
   * for more problems.
   */
  attempt<T>(construct: string, read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof EdmxError)) throw error;
      this.problem(error, `skipped ${construct}`);
      this.failed.add(construct);
      return undefined;
    }
  }

  /**
   * Whether `construct` refers to one that failed to read (`Association Shop.A`): it is then
   * skipped too, with a warning in lenient reading, and no error in strict reading, where the
   * cause is reported already.
   */
  followsFailed(construct: string, refersTo: string): boolean {
    if (!this.failed.has(refersTo)) return false;
    if (this.lenient) this.warnings.push(`skipped ${construct}: ${refersTo} was skipped`);
    return true;
  }

  /** A problem lenient reading works around as `remedy` says (`skipped ...`, `read ... as ...`). */
  problem(error: EdmxError, remedy: string): void {
    if (this.lenient) this.warnings.push(`${remedy}: ${error.message}`);
    else this.errors.push(error);
  }

  /** Strict reading: fails with every problem found (the code is the first one's). */
  throwIfAny(): void {
    const [first] = this.errors;
    if (first === undefined) return;
    if (this.errors.length === 1) throw first;
    const list = this.errors.map((error) => `\n  - ${error.message}`).join('');
    throw new EdmxError(first.code, `${this.errors.length} problems (--lenient skips what it does not support):${list}`);
  }
}

/** Whether a property's type is one the model declares (primitive or a complex type of `complex`). */
function isKnownType(property: Property, complex: ReadonlySet<string>): boolean {
  return isEdmPrimitiveType(property.type) || complex.has(property.type);
}

/**
 * Lenient reading: drops, one warning each, what refers to a construct that was skipped (or never
 * declared), until nothing does: properties of unknown types (an entity type whose key is one of
 * them goes too), associations between types that are gone, navigation properties over them,
 * referential constraints naming missing properties, and the sets, association sets and function
 * imports of what is gone.
 */
export function pruneDangling(model: Model, problems: ReadProblems): Model {
  const skip = (construct: string, reason: string): void => problems.problem(new EdmxError('EDMX_UNKNOWN_TYPE', reason), `skipped ${construct}`);
  let complexTypes = model.complexTypes;
  let entityTypes = model.entityTypes;
  let associations = model.associations;
  for (let changed = true; changed;) {
    changed = false;
    const complexNames = new Set(complexTypes.map((t) => t.fullName));
    const knownProperties = <T extends ComplexType | EntityType>(type: T, kind: string): T => {
      const kept = type.properties.filter((property) => {
        if (isKnownType(property, complexNames)) return true;
        skip(`Property ${type.fullName}/${property.name}`, `${kind} ${type.fullName}: Type="${property.type}" is neither an Edm primitive type nor a declared ComplexType`);
        changed = true;
        return false;
      });
      return kept.length === type.properties.length ? type : { ...type, properties: kept };
    };
    complexTypes = complexTypes.map((type) => knownProperties(type, 'ComplexType'));
    entityTypes = entityTypes.flatMap((type) => {
      const kept = knownProperties(type, 'EntityType');
      const lostKey = type.key.find((name) => !kept.properties.some((p) => p.name === name));
      if (lostKey === undefined) return [kept];
      skip(`EntityType ${type.fullName}`, `its key property ${lostKey} was skipped`);
      return [];
    });
    const entityNames = new Set(entityTypes.map((t) => t.fullName));
    associations = associations.flatMap((association): Association[] => {
      const missing = association.ends.find((end) => !entityNames.has(end.type));
      if (missing !== undefined) {
        skip(`Association ${association.fullName}`, `End ${missing.role}: EntityType ${missing.type} is not declared or was skipped`);
        changed = true;
        return [];
      }
      const constraint = association.referentialConstraint;
      if (constraint === undefined) return [association];
      const properties = (role: string) => entityTypes.find((t) => t.fullName === association.ends.find((e) => e.role === role)?.type)?.properties ?? [];
      const lost = [constraint.principal, constraint.dependent]
        .flatMap((side) => side.properties.filter((name) => !properties(side.role).some((p) => p.name === name)));
      if (lost.length === 0) return [association];
      skip(`ReferentialConstraint of Association ${association.fullName}`, `${lost.join(', ')} is not a property of its end`);
      const { referentialConstraint: _dropped, ...rest } = association;
      return [rest];
    });
    const associationNames = new Set(associations.map((a) => a.fullName));
    entityTypes = entityTypes.map((type) => {
      const navigations = type.navigationProperties.filter((nav: NavigationProperty) => {
        if (associationNames.has(nav.relationship)) return true;
        skip(`NavigationProperty ${type.fullName}/${nav.name}`, `Association ${nav.relationship} was skipped`);
        changed = true;
        return false;
      });
      return navigations.length === type.navigationProperties.length ? type : { ...type, navigationProperties: navigations };
    });
  }

  const entityNames = new Set(entityTypes.map((t) => t.fullName));
  const entitySets = model.entitySets.filter((set) => {
    if (entityNames.has(set.entityType)) return true;
    skip(`EntitySet ${set.name}`, `EntityType ${set.entityType} is not declared or was skipped`);
    return false;
  });
  const setNames = new Set(entitySets.map((s) => s.name));
  const associationNames = new Set(associations.map((a) => a.fullName));
  const associationSets = model.associationSets.filter((associationSet) => {
    const gone = !associationNames.has(associationSet.association) ? `Association ${associationSet.association}`
      : associationSet.ends.find((end) => !setNames.has(end.entitySet))?.entitySet;
    if (gone === undefined) return true;
    skip(`AssociationSet ${associationSet.name}`, `${gone.startsWith('Association ') ? gone : `EntitySet ${gone}`} is not declared or was skipped`);
    return false;
  });
  const typeNames = new Set([...entityNames, ...complexTypes.map((t) => t.fullName)]);
  const functionImports = model.functionImports.filter((fn) => {
    const element = fn.returnType && (/^Collection\((.+)\)$/.exec(fn.returnType)?.[1] ?? fn.returnType);
    const lostType = element !== undefined && !isEdmPrimitiveType(element) && !typeNames.has(element);
    const lostSet = fn.entitySet !== undefined && !setNames.has(fn.entitySet);
    if (!lostType && !lostSet) return true;
    skip(`FunctionImport ${fn.name}`, lostType ? `ReturnType ${fn.returnType ?? ''} is not declared or was skipped` : `EntitySet ${fn.entitySet ?? ''} is not declared or was skipped`);
    return false;
  });
  return { ...model, complexTypes, entityTypes, associations, entitySets, associationSets, functionImports };
}
