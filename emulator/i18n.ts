// E6: ru / en / kk messages. `code`, field names and structure never change with the language;
// some strings are deliberately left in English, as the real API does (B1 text, the limiter's 429).
import type { Language } from "./types";

const SUPPORTED: readonly Language[] = ["ru", "en", "kk"];

/** "ru-RU" → "ru"; anything unsupported → null. */
function normaliseLanguage(value: string | null | undefined): Language | null {
  if (!value) return null;
  const base = value.trim().toLowerCase().split(/[-_]/)[0];
  return (SUPPORTED as readonly string[]).includes(base) ? (base as Language) : null;
}

function fromAcceptLanguage(header: string | null): Language | null {
  if (!header) return null;
  const tags = header
    .split(",")
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { tag, q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((t) => t.tag && !Number.isNaN(t.q) && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const t of tags) {
    const lang = normaliseLanguage(t.tag);
    if (lang) return lang;
  }
  return null;
}

/** E6: X-Language, then X-Locale, then Accept-Language, then the default. */
export function resolveLanguage(headers: Headers, fallback: Language): Language {
  return (
    normaliseLanguage(headers.get("x-language")) ??
    normaliseLanguage(headers.get("x-locale")) ??
    fromAcceptLanguage(headers.get("accept-language")) ??
    fallback
  );
}

type Catalog = Record<string, Partial<Record<Language, string>> & { en: string }>;

const MESSAGES: Catalog = {
  unauthenticated: { en: "Unauthenticated.", ru: "Не выполнен вход.", kk: "Аутентификация орындалмады." },
  ip_forbidden: {
    en: "Access from this IP address is not allowed for this API key.",
    ru: "Доступ с этого IP-адреса для данного API-ключа запрещён.",
    kk: "Бұл API кілті үшін осы IP мекенжайынан кіруге тыйым салынған.",
  },
  api_mode_forbidden: {
    en: "The API mode of this key does not allow this method.",
    ru: "Режим API этого ключа не разрешает этот метод.",
    kk: "Бұл кілттің API режимі бұл әдіске рұқсат бермейді.",
  },
  tariff_forbidden: {
    en: "Your tariff does not include this operation.",
    ru: "Ваш тариф не включает эту операцию.",
    kk: "Сіздің тарифіңіз бұл операцияны қамтымайды.",
  },
  reseller_restricted: {
    en: "The reseller account is restricted: only safe methods are allowed.",
    ru: "Аккаунт реселлера ограничен: разрешены только безопасные методы.",
    kk: "Реселлер аккаунты шектелген: тек қауіпсіз әдістерге рұқсат етілген.",
  },
  scope_forbidden: {
    en: "The API key does not have the required scope.",
    ru: "У API-ключа нет необходимого scope.",
    kk: "API кілтінде қажетті scope жоқ.",
  },
  // B1: the guide shows this text verbatim; it is not translated.
  support_live_only: { en: "Support is available only to live credentials." },
  finance_live_only: {
    en: "Financial resources are available only to live credentials.",
    ru: "Финансовые ресурсы доступны только для live-ключей.",
  },
  not_found: { en: "Resource not found.", ru: "Ресурс не найден.", kk: "Ресурс табылмады." },
  route_not_found: { en: "Route not found.", ru: "Маршрут не найден.", kk: "Маршрут табылмады." },
  // C11: the limiter's message stays in English in every language.
  rate_limited: { en: "API rate limit exceeded." },
  idempotency_key_invalid: {
    en: "The Idempotency-Key header is required and must contain 1 to 160 characters.",
    ru: "Заголовок Idempotency-Key обязателен и должен содержать от 1 до 160 символов.",
    kk: "Idempotency-Key тақырыбы міндетті және 1-ден 160-қа дейін таңбадан тұруы керек.",
  },
  idempotency_mismatch: {
    en: "The Idempotency-Key was already used with a different request.",
    ru: "Idempotency-Key уже использован с другим запросом.",
    kk: "Idempotency-Key басқа сұраумен бұрын қолданылған.",
  },
  idempotency_processing: {
    en: "A request with this Idempotency-Key is still being processed.",
    ru: "Запрос с этим Idempotency-Key ещё обрабатывается.",
    kk: "Осы Idempotency-Key бар сұрау әлі өңделуде.",
  },
  malformed_json: {
    en: "The request body is not valid JSON.",
    ru: "Тело запроса не является корректным JSON.",
    kk: "Сұрау денесі жарамды JSON емес.",
  },
  server_error: { en: "Server Error." },
  service_unavailable: { en: "Service Unavailable." },
  // field rules; :field is replaced with the field's display name
  "v.required": { en: "The :field field is required.", ru: "Поле :field обязательно.", kk: ":field өрісі міндетті." },
  "v.string": {
    en: "The :field field must be a string.",
    ru: "Поле :field должно быть строкой.",
    kk: ":field өрісі жол болуы керек.",
  },
  "v.integer": {
    en: "The :field field must be an integer.",
    ru: "Поле :field должно быть целым числом.",
    kk: ":field өрісі бүтін сан болуы керек.",
  },
  "v.boolean": {
    en: "The :field field must be true or false.",
    ru: "Поле :field должно быть true или false.",
    kk: ":field өрісі true немесе false болуы керек.",
  },
  "v.array": {
    en: "The :field field must be an array.",
    ru: "Поле :field должно быть массивом.",
    kk: ":field өрісі массив болуы керек.",
  },
  "v.between": {
    en: "The :field field must be between :min and :max.",
    ru: "Поле :field должно быть между :min и :max.",
    kk: ":field өрісі :min мен :max аралығында болуы керек.",
  },
  "v.length": {
    en: "The :field field must be between :min and :max characters.",
    ru: "Поле :field должно содержать от :min до :max символов.",
    kk: ":field өрісі :min мен :max таңба аралығында болуы керек.",
  },
  "v.items": {
    en: "The :field field must have between :min and :max items.",
    ru: "Поле :field должно содержать от :min до :max элементов.",
    kk: ":field өрісінде :min мен :max аралығында элемент болуы керек.",
  },
  "v.in": {
    en: "The selected :field is invalid.",
    ru: "Выбранное значение :field недопустимо.",
    kk: "Таңдалған :field жарамсыз.",
  },
  "v.url": {
    en: "The :field field must be a valid URL.",
    ru: "Поле :field должно быть корректным URL.",
    kk: ":field өрісі жарамды URL болуы керек.",
  },
  "v.uuid": {
    en: "The :field field must be a valid UUID.",
    ru: "Поле :field должно быть корректным UUID.",
    kk: ":field өрісі жарамды UUID болуы керек.",
  },
  "v.domain": {
    en: "The :field field must be a valid domain name.",
    ru: "Поле :field должно быть корректным доменным именем.",
    kk: ":field өрісі жарамды домен атауы болуы керек.",
  },
  "v.tld": {
    en: "The :field zone is not supported.",
    ru: "Зона :field не поддерживается.",
    kk: ":field аймағына қолдау көрсетілмейді.",
  },
  "v.unavailable": {
    en: "The :field is not available for registration.",
    ru: "Домен :field недоступен для регистрации.",
    kk: ":field тіркеуге қолжетімсіз.",
  },
  "v.balance": {
    en: "Insufficient balance for this :field.",
    ru: "Недостаточно средств для :field.",
    kk: ":field үшін қаражат жеткіліксіз.",
  },
  "v.cursor": { en: "The :field is invalid.", ru: "Значение :field недопустимо.", kk: ":field жарамсыз." },
};

/** Looks up a message; falls back to English where a translation is missing (E6). */
export function t(lang: Language, key: string, params: Record<string, string | number> = {}): string {
  const entry = MESSAGES[key];
  let text = entry ? (entry[lang] ?? entry.en) : key;
  for (const [name, value] of Object.entries(params)) text = text.split(`:${name}`).join(String(value));
  return text;
}

export type Translate = (key: string, params?: Record<string, string | number>) => string;
