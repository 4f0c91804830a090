// Request-body validation per shapes.md: 422 validation_failed with a field → [messages] map (E1, E2).
import { validationError, type FieldErrors } from "./errors";
import type { Translate } from "./i18n";

const DOMAIN_RE = /^(?=.{1,253}$)(?!-)[a-z0-9\u0400-\u04ff-]{1,63}(?<!-)(\.(?!-)[a-z0-9\u0400-\u04ff-]{1,63}(?<!-))+$/i;

export function isDomainName(value: string): boolean {
  return DOMAIN_RE.test(value);
}

/** Collects field errors in Laravel's style; `done()` throws the 422 when any were found. */
export class Validator {
  readonly errors: FieldErrors = {};
  readonly data: Record<string, unknown>;

  constructor(
    body: unknown,
    private readonly tr: Translate,
  ) {
    this.data =
      body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  }

  fail(field: string, rule: string, params: Record<string, string | number> = {}): void {
    const name = field.replace(/_/g, " ");
    (this.errors[field] ??= []).push(this.tr(rule, { field: name, ...params }));
  }

  has(field: string): boolean {
    return this.data[field] !== undefined && this.data[field] !== null;
  }

  string(field: string, min: number, max: number, required = true): string | undefined {
    const v = this.data[field];
    if (v === undefined || v === null || v === "") {
      if (required) this.fail(field, "v.required");
      return undefined;
    }
    if (typeof v !== "string") return void this.fail(field, "v.string");
    if (v.length < min || v.length > max) return void this.fail(field, "v.length", { min, max });
    return v;
  }

  integer(field: string, min: number, max: number, required = true): number | undefined {
    const v = this.data[field];
    if (v === undefined || v === null) {
      if (required) this.fail(field, "v.required");
      return undefined;
    }
    if (typeof v !== "number" || !Number.isInteger(v)) return void this.fail(field, "v.integer");
    if (v < min || v > max) return void this.fail(field, "v.between", { min, max });
    return v;
  }

  boolean(field: string): boolean | undefined {
    const v = this.data[field];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") return void this.fail(field, "v.boolean");
    return v;
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T | undefined {
    const v = this.data[field];
    if (v === undefined || v === null || v === "") return void this.fail(field, "v.required");
    if (typeof v !== "string" || !(allowed as readonly string[]).includes(v)) return void this.fail(field, "v.in");
    return v as T;
  }

  /** An array of strings with min..max items, each checked by `item` (returns an error rule or null). */
  stringArray(
    field: string,
    min: number,
    max: number,
    item: (value: string) => string | null,
    required = true,
  ): string[] | undefined {
    const v = this.data[field];
    if (v === undefined || v === null) {
      if (required) this.fail(field, "v.required");
      return undefined;
    }
    if (!Array.isArray(v)) return void this.fail(field, "v.array");
    if (v.length < min || v.length > max) return void this.fail(field, "v.items", { min, max });
    let ok = true;
    v.forEach((entry, i) => {
      const key = `${field}.${i}`;
      if (typeof entry !== "string") {
        ok = false;
        return void this.fail(key, "v.string");
      }
      const rule = item(entry);
      if (rule) {
        ok = false;
        this.fail(key, rule);
      }
    });
    return ok ? (v as string[]) : undefined;
  }

  url(field: string, required = true): string | undefined {
    const v = this.string(field, 1, 2048, required);
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("scheme");
      return v;
    } catch {
      return void this.fail(field, "v.url");
    }
  }

  done(): void {
    if (Object.keys(this.errors).length > 0) throw validationError(this.errors);
  }
}
