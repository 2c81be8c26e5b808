// Namespace URIs of the OData V2 wire formats (Atom, AtomPub, OData data and metadata, EDMX).
// One place for every codec and the $metadata writer, so a typo cannot split them.

/** Atom syndication (RFC 4287): `feed`, `entry`, `link`, `content`, ... */
export const NS_ATOM = 'http://www.w3.org/2005/Atom';
/** AtomPub (RFC 5023): the service document (`app:service`, `app:workspace`, `app:collection`). */
export const NS_APP = 'http://www.w3.org/2007/app';
/** OData data services: the `d:` property elements, `links` and `uri`. */
export const NS_DATA = 'http://schemas.microsoft.com/ado/2007/08/dataservices';
/** OData metadata: `m:properties`, `m:type`, `m:null`, `m:inline`, `m:count`, `m:etag`, errors. */
export const NS_METADATA = 'http://schemas.microsoft.com/ado/2007/08/dataservices/metadata';
/** Base of the `rel` of navigation links: `related/<NavigationProperty>`. */
export const NS_RELATED = 'http://schemas.microsoft.com/ado/2007/08/dataservices/related/';
/** `scheme` of the Atom `category` that names the entity type. */
export const NS_SCHEME = 'http://schemas.microsoft.com/ado/2007/08/dataservices/scheme';
/** The `xml:` prefix (`xml:base`, `xml:lang`); bound by XML itself, never declared. */
export const NS_XML = 'http://www.w3.org/XML/1998/namespace';
/** EDMX 1.0 envelope of `$metadata`. */
export const NS_EDMX = 'http://schemas.microsoft.com/ado/2007/06/edmx';
/** CSDL of EDMX 1.0 with DataServiceVersion 2.0 (the `Schema` element). */
export const NS_EDM = 'http://schemas.microsoft.com/ado/2008/09/edm';
