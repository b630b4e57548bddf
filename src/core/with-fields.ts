/**
 * `{ ...base, ...fields }` for option bags and records built on every request or event.
 *
 * Rule: on a hot path, an object literal never starts with a spread followed by more than one
 * property. On Node 20 (V8 11.3) such a literal builds fresh hidden classes each time it runs,
 * which then live in the old generation until a full collection: `npm run bench -- hidden-classes`
 * measures about 3 KB allocated and 360 B promoted per literal with three extra properties,
 * against 148 B and nothing here; Node 22 and 24 do not (docs/performance.md). `Object.assign`
 * onto a new object takes the shared path and gives the same own properties in the same order,
 * later ones winning.
 *
 * Only for objects whose keys this code chose: `Object.assign` sets rather than defines, so a
 * `__proto__` key read from JSON would set the prototype, where a spread copies it as data.
 */
export function withFields<Base extends object, Fields extends object>(
  base: Base,
  fields: Fields,
): Omit<Base, keyof Fields> & Fields {
  return Object.assign({}, base, fields) as Omit<Base, keyof Fields> & Fields;
}
