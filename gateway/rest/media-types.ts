// Media types the REST face reads besides plain JSON.

/** RFC 7396: the body of a PATCH. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';
