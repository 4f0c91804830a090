/**
 * The option names each store factory knows. A misspelt name (`keyPrefx`) would otherwise be
 * ignored silently — a fleet sharing the default Redis prefix, a journal opened without the schema
 * it was meant to use — so it is refused before anything is created, naming the nearest known name.
 */
import { InvalidOptionsError } from "../core";
import { editDistance } from "../runtime/edit-distance";

/** Every option name of `T`, so adding an option without listing it here fails to compile. */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Throws InvalidOptionsError for the first own property of `options` that `known` lacks:
 * "<factory>: keyPrefx is not an option: did you mean keyPrefix? (known: …)". `prefix` names a
 * nested object (`failover.`). Anything that is not an object is left to the factory's own checks.
 */
export function checkOptionNames(
  options: unknown,
  known: Readonly<Record<string, true>>,
  factory: string,
  prefix = "",
): void {
  if (options === null || typeof options !== "object") return;
  for (const name of Object.keys(options)) {
    if (Object.hasOwn(known, name)) continue;
    const near = Object.keys(known)
      .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
      .filter(({ d }) => d <= 2)
      .sort((x, y) => x.d - y.d)[0];
    throw new InvalidOptionsError(
      `${factory}: ${prefix}${name} is not an option${near ? `: did you mean ${prefix}${near.k}?` : ""} ` +
        `(known: ${Object.keys(known)
          .map((k) => prefix + k)
          .join(", ")}). Nothing was created.`,
      `${prefix}${name}`,
    );
  }
}
