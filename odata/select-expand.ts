// `$expand` and `$select` of OData V2: comma lists of paths over navigation properties (any
// multiplicity), resolved against the model into an expand tree and a list of selected members.
import type { EntitySet, EntityType, NavigationProperty, Property } from './model.js';
import type { ModelIndex } from './model-index.js';
import type { QueryLimits } from './limits.js';
import type { NameStyle } from './member-names.js';
import { findMember } from './member-names.js';
import { quoteForMessage } from './literals.js';
import { LimitError, UriSyntaxError } from './errors.js';

export interface ExpandItem {
  readonly navigation: NavigationProperty;
  /** Entity set and type the navigation leads to. */
  readonly set: EntitySet;
  readonly type: EntityType;
  /** Expanded in turn below this one (`A/B` puts B under A). */
  readonly expand: readonly ExpandItem[];
}

/** `navigation` is the path of navigation property names (EDMX) the item is under. */
export type SelectItem =
  | { readonly kind: 'all'; readonly navigation: readonly string[] }
  | { readonly kind: 'property'; readonly navigation: readonly string[]; readonly property: Property }
  | { readonly kind: 'navigation'; readonly navigation: readonly string[] };

function splitPaths(text: string, option: string): string[][] {
  return text.split(',').map((item) => {
    const path = item.trim();
    const segments = path.split('/');
    if (segments.some((s) => s === '')) {
      throw new UriSyntaxError(`${option} has an empty path or segment in ${JSON.stringify(quoteForMessage(path))}`, option);
    }
    return segments;
  });
}

function navigationOf(index: ModelIndex, type: EntityType, name: string, names: NameStyle, option: string): NavigationProperty {
  const member = findMember(index, type, name, names);
  if (member?.kind !== 'navigation') {
    const what = member ? 'is a property, not a navigation property' : 'is not a navigation property';
    throw new UriSyntaxError(`${option}: ${JSON.stringify(quoteForMessage(name))} ${what} of ${type.fullName}`, option);
  }
  return member.navigation;
}

interface MutableExpand {
  readonly navigation: NavigationProperty;
  readonly set: EntitySet;
  readonly type: EntityType;
  readonly expand: MutableExpand[];
}

export function parseExpand(
  text: string,
  set: EntitySet,
  index: ModelIndex,
  limits: QueryLimits,
  names: NameStyle = 'edm',
): ExpandItem[] {
  const paths = splitPaths(text, '$expand');
  if (paths.length > limits.maxExpandPaths) {
    throw new LimitError(`$expand has more than ${limits.maxExpandPaths} paths`, '$expand');
  }
  const root: MutableExpand[] = [];
  for (const path of paths) {
    if (path.length > limits.maxExpandDepth) {
      throw new LimitError(`$expand path ${quoteForMessage(path.join('/'))} is deeper than ${limits.maxExpandDepth} levels`, '$expand');
    }
    let level = root;
    let from = set;
    for (const name of path) {
      const navigation = navigationOf(index, index.typeOfSet(from), name, names, '$expand');
      let item = level.find((e) => e.navigation === navigation);
      if (!item) {
        const target = index.navigationTarget(from, navigation);
        item = { navigation, set: target, type: index.typeOfSet(target), expand: [] };
        level.push(item);
      }
      level = item.expand;
      from = item.set;
    }
  }
  return root;
}

export function parseSelect(
  text: string,
  set: EntitySet,
  index: ModelIndex,
  expand: readonly ExpandItem[],
  names: NameStyle = 'edm',
): SelectItem[] {
  return splitPaths(text, '$select').map((path) => {
    let type = index.typeOfSet(set);
    let expanded: readonly ExpandItem[] | undefined = expand;
    const navigation: string[] = [];
    for (let i = 0; i < path.length - 1; i++) {
      const name = path[i] as string;
      const nav = navigationOf(index, type, name, names, '$select');
      const item: ExpandItem | undefined = expanded?.find((e) => e.navigation === nav);
      if (!item) {
        throw new UriSyntaxError(`$select path ${quoteForMessage(path.join('/'))} goes through ${nav.name}, which $expand must name`, '$select');
      }
      navigation.push(nav.name);
      type = item.type;
      expanded = item.expand;
    }
    const last = path[path.length - 1] as string;
    if (last === '*') return { kind: 'all', navigation };
    const member = findMember(index, type, last, names);
    if (!member) {
      throw new UriSyntaxError(`$select: ${JSON.stringify(quoteForMessage(last))} is not a property of ${type.fullName}`, '$select');
    }
    if (member.kind === 'navigation') return { kind: 'navigation', navigation: [...navigation, member.navigation.name] };
    return { kind: 'property', navigation, property: member.property };
  });
}
