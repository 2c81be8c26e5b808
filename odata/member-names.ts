// Finds a property or navigation property of a structured type by the name a client wrote:
// the EDMX name on the OData face, the REST name (`clientId`) on the gateway's REST face.
import type { ComplexType, EntityType, NavigationProperty, Property } from './model.js';
import type { ModelIndex } from './model-index.js';

export type NameStyle = 'edm' | 'rest';

export type Member =
  | { readonly kind: 'property'; readonly property: Property }
  | { readonly kind: 'navigation'; readonly navigation: NavigationProperty };

type StructuredType = EntityType | ComplexType;

const restMembers = new WeakMap<StructuredType, ReadonlyMap<string, Member>>();

function restLookup(type: StructuredType): ReadonlyMap<string, Member> {
  let members = restMembers.get(type);
  if (!members) {
    const map = new Map<string, Member>();
    for (const property of type.properties) map.set(property.restName, { kind: 'property', property });
    if ('navigationProperties' in type) {
      for (const navigation of type.navigationProperties) map.set(navigation.restName, { kind: 'navigation', navigation });
    }
    members = map;
    restMembers.set(type, members);
  }
  return members;
}

export function findMember(index: ModelIndex, type: StructuredType, name: string, names: NameStyle = 'edm'): Member | undefined {
  if (names === 'rest') return restLookup(type).get(name);
  const property = index.property(type, name);
  if (property) return { kind: 'property', property };
  const navigation = 'navigationProperties' in type ? index.navigation(type, name) : undefined;
  return navigation ? { kind: 'navigation', navigation } : undefined;
}
