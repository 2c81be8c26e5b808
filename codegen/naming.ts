// The REST face's names are derived from the EDMX names by these functions and nothing else,
// so the mapping is the same in every generated artefact and at runtime.

// One word per match: a plural acronym (`IDs`), an acronym not followed by a lowercase letter
// (`HTML` in `HTMLBody`, `ID` in `ClientID`), a capitalised or lowercase word, a run of digits.
// Digits stay with the word before them (`Custom1`, `Int64`). Letters are any script's, as in
// EDMX identifiers (`Qüeries`, `Größe`): ASCII-only classes dropped the others and cut names
// (`OrdersQüeries` became `OrdersQEries`). Letters without case (`Lo`) and marks count as lowercase.
const UPPER = '\\p{Lu}\\p{Lt}';
const LOWER = '\\p{Ll}\\p{Lo}\\p{Lm}\\p{M}';
const DIGIT = '\\p{Nd}';
const WORD = new RegExp(
  `[${UPPER}]{2,}s(?![${LOWER}])[${DIGIT}]*|[${UPPER}]+[${DIGIT}]*(?![${LOWER}])|[${UPPER}]?[${LOWER}]+[${DIGIT}]*|[${DIGIT}]+`,
  'gu',
);

/** Splits an EDM identifier into lowercase words: `DeletedTimeEntryIDs` -> deleted,time,entry,ids. */
export function splitWords(name: string): string[] {
  return (name.normalize('NFC').match(WORD) ?? []).map((word) => word.toLowerCase());
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `Order_Details` -> `OrderDetails`, `ClientID` -> `ClientId`. */
export function toPascalCase(name: string): string {
  return splitWords(name).map(capitalise).join('');
}

/** `TimeEntries` -> `time-entries`, `Order_Details` -> `order-details`. */
export function toKebabCase(name: string): string {
  return splitWords(name).join('-');
}

/** JSON name of a property, navigation property, parameter or function: `ClientID` -> `clientId`. */
export function toRestName(edmName: string): string {
  const [first = '', ...rest] = splitWords(edmName);
  return first + rest.map(capitalise).join('');
}

/** REST resource path segment of an entity set: `AccountSettings` -> `account-settings`. */
export function toRestPath(setName: string): string {
  return toKebabCase(setName);
}
