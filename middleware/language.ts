/**
 * E6: the response language via X-Language (ru | en | kk; a regional suffix such as ru-RU is
 * allowed — the server normalises it). Codes and field names never change with language, and no
 * code path here or anywhere in the client branches on `message`.
 */
import type { ChainStep } from "./chain";
import { InvalidArgumentError } from "../core";

const LANGUAGE_RE = /^(ru|en|kk)(?:[-_][A-Za-z0-9]{2,8})?$/i;

export function validateLanguage(value: unknown, argument = "language"): string {
  if (typeof value !== "string" || !LANGUAGE_RE.test(value.trim())) {
    throw new InvalidArgumentError(`${argument} must be ru, en or kk, optionally with a region (E6).`, argument);
  }
  return value.trim();
}

export function createLanguageMiddleware(defaultLanguage?: string): ChainStep {
  const fallback = defaultLanguage === undefined ? undefined : validateLanguage(defaultLanguage);
  return {
    onRequest({ request, callContext: ctx }) {
      const chosen = ctx?.language !== undefined ? validateLanguage(ctx.language) : fallback;
      if (chosen) request.headers.set("X-Language", chosen);
      return undefined;
    },
  };
}
