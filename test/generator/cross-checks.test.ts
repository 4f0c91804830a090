/**
 * Extensions checked against the operation that carries them (generator/cross-checks.ts,
 * generator/extensions.ts): each case is the real spec with one defect a user trial found, fed to the
 * generator's model (or, for H2, to generator/validate.ts's cross-check, which `npm run generate` runs
 * before writing). Each must be refused with its spec pointer and the fix.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { emitErrors } from "../../generator/emit-errors";
import { readOperations } from "../../generator/model";
import { createSpec } from "../../generator/spec";
import { contractErrorsOf } from "../../generator/validate";
import { ROOT } from "./support";

const TEXT = readFileSync(join(ROOT, "spec/openapi.yaml"), "utf8");
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the copies are edited node by node
const realSpec = (): any => parse(TEXT, { maxAliasCount: -1 });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Doc = any;

/** The generator's model over a copy of the real spec after `edit`. */
function model(edit: (doc: Doc) => void) {
  const doc = realSpec();
  edit(doc);
  return () => readOperations(createSpec("openapi.yaml", doc));
}

/** generator/validate.ts's cross-check errors over a copy of the real spec after `edit`. */
function contract(edit: (doc: Doc) => void): string[] {
  const doc = realSpec();
  edit(doc);
  return contractErrorsOf("openapi.yaml", doc);
}

const RENEW = "#/paths/~1domains~1{domainUuid}~1renew/post";

describe("generator cross-checks: the real spec passes every one", () => {
  it("the unmodified spec has no model or cross-check error", () => {
    expect(model(() => undefined)).not.toThrow();
    expect(contract(() => undefined)).toEqual([]);
  });
});

describe("I6: x-lock-key names a field the request has", () => {
  it("I6: an x-lock-key whose field is not a path parameter is refused with its spec pointer and the fix", () => {
    const run = model((doc) => {
      doc.paths["/domains/{domainUuid}/renew"].post["x-lock-key"].field = "domainId";
    });
    expect(run).toThrow(
      `${RENEW}/x-lock-key/field: I6: domainId is not a path parameter of /domains/{domainUuid}/renew`,
    );
    expect(run).toThrow("Fix: field: domainUuid");
  });

  it("I6: an x-lock-key from: body on an operation without a requestBody is refused", () => {
    const run = model((doc) => {
      doc.paths["/domains/{domainUuid}/sync"].post["x-lock-key"] = { from: "body", field: "domain", prefix: "domain" };
    });
    expect(run).toThrow(
      "#/paths/~1domains~1{domainUuid}~1sync/post/x-lock-key/field: I6: from: body, but the operation has no requestBody",
    );
  });

  it("I6: an x-lock-key from: body naming a property the body does not have is refused", () => {
    const run = model((doc) => {
      doc.paths["/orders"].post["x-lock-key"].field = "domain_name";
    });
    expect(run).toThrow("#/paths/~1orders/post/x-lock-key/field: I6: the request body has no property domain_name");
    expect(run).toThrow(/it has [a-z_, ]*\bdomain\b/);
  });
});

describe("unknown x-* extensions are refused with the near known one", () => {
  it.each([
    [
      "x-live-onyl on an operation",
      (doc: Doc) => {
        const op = doc.paths["/balance"].get;
        delete op["x-live-only"];
        op["x-live-onyl"] = true;
      },
      "#/paths/~1balance/get/x-live-onyl: unknown extension x-live-onyl on an operation: did you mean x-live-only?",
    ],
    [
      "x-unknown-outcom on an operation",
      (doc: Doc) => {
        const op = doc.paths["/orders"].post;
        op["x-unknown-outcom"] = op["x-unknown-outcome"];
        delete op["x-unknown-outcome"];
      },
      "#/paths/~1orders/post/x-unknown-outcom: unknown extension x-unknown-outcom on an operation: did you mean x-unknown-outcome?",
    ],
    [
      "x-sensitive-field on a requestBody",
      (doc: Doc) => {
        doc.paths["/tickets"].post.requestBody["x-sensitive-field"] = ["message"];
      },
      "#/paths/~1tickets/post/requestBody/x-sensitive-field: unknown extension x-sensitive-field on a requestBody: did you mean x-sensitive-fields?",
    ],
    [
      "x-enum-cont on a component schema",
      (doc: Doc) => {
        doc.components.schemas.WebhookEvent["x-enum-cont"] = "webhookEvents";
      },
      "#/components/schemas/WebhookEvent/x-enum-cont: unknown extension x-enum-cont on a components/schemas entry: did you mean x-enum-const?",
    ],
    [
      "an operation extension on a HEAD",
      (doc: Doc) => {
        doc.paths["/balance"].head["x-live-only"] = true;
      },
      "#/paths/~1balance/head/x-live-only: unknown extension x-live-only on a HEAD",
    ],
    [
      "an operation extension on a response",
      (doc: Doc) => {
        doc.paths["/balance"].get.responses["200"]["x-live-only"] = true;
      },
      "#/paths/~1balance/get/responses/200/x-live-only: unknown extension x-live-only on a response: did you mean x-live-only? (it is not read on a response)",
    ],
  ])("%s", (_name, edit, message) => {
    expect(model(edit)).toThrow(message);
  });
});

describe("extensions checked against the operation", () => {
  it.each([
    [
      "F1: x-async-operation on an operation without a 202 Operation response",
      (doc: Doc) => {
        doc.paths["/webhooks/{webhookUuid}"].patch["x-async-operation"] = true;
      },
      "#/paths/~1webhooks~1{webhookUuid}/patch/x-async-operation: F1: x-async-operation: true needs a 202 response whose body is the Operation",
    ],
    [
      "F1: x-async-operation on a GET",
      (doc: Doc) => {
        doc.paths["/domains/{domainUuid}"].get["x-async-operation"] = true;
      },
      "#/paths/~1domains~1{domainUuid}/get/x-async-operation: F1:",
    ],
    [
      "A5/C1: x-teaches-limit on an operation without credential.rate_limit_per_minute",
      (doc: Doc) => {
        doc.paths["/domains/{domainUuid}"].get["x-teaches-limit"] = true;
      },
      "#/paths/~1domains~1{domainUuid}/get/x-teaches-limit: A5/C1: x-teaches-limit: true, but no success body has credential.rate_limit_per_minute",
    ],
    [
      "E4: x-unknown-outcome on a GET",
      (doc: Doc) => {
        doc.paths["/orders"].get["x-unknown-outcome"] = "resend";
      },
      "#/paths/~1orders/get/x-unknown-outcome: E4/I4: x-unknown-outcome is only for writes",
    ],
    [
      "A9: x-malformed-uuid-status on an operation without a path parameter",
      (doc: Doc) => {
        doc.paths["/balance"].get["x-malformed-uuid-status"] = 422;
      },
      "#/paths/~1balance/get/x-malformed-uuid-status: A9: /balance has no path parameter",
    ],
    [
      "A9: a write with a UUID path parameter but no x-malformed-uuid-status",
      (doc: Doc) => {
        delete doc.paths["/domains/{domainUuid}/sync"].post["x-malformed-uuid-status"];
      },
      "#/paths/~1domains~1{domainUuid}~1sync/post: A9: path parameter domainUuid is a UUID (format: uuid), but the operation does not say how a malformed one is answered. Fix: add x-malformed-uuid-status",
    ],
  ])("%s is refused with its pointer", (_name, edit, message) => {
    expect(model(edit)).toThrow(message);
  });

  it("H2: an x-sensitive-fields name that no success body has is refused with its pointer", () => {
    const errors = contract((doc) => {
      doc.paths["/webhooks"].post["x-sensitive-fields"] = ["signing_key"];
    });
    expect(errors).toEqual([
      expect.stringContaining(
        "#/paths/~1webhooks/post/x-sensitive-fields: H2: signing_key is not a property of any success body of webhooks.create",
      ),
    ]);
  });

  it("H2: a response field that is sensitive on another operation must be sensitive here too", () => {
    const errors = contract((doc) => {
      delete doc.paths["/webhooks/{webhookUuid}/rotate-secret"].post["x-sensitive-fields"];
    });
    expect(errors).toEqual([
      expect.stringContaining(
        "#/paths/~1webhooks~1{webhookUuid}~1rotate-secret/post/x-sensitive-fields: H2: a success body of webhooks.rotateSecret has signing_secret, which is sensitive on webhooks.create",
      ),
    ]);
  });

  it("H2: a response field named like a secret (private_key) that is not marked is refused", () => {
    const errors = contract((doc) => {
      doc.components.schemas.AuthCodeResponse.properties.private_key = {
        type: "string",
        description: "The zone signing key.",
      };
    });
    expect(errors).toEqual([expect.stringContaining("has private_key, which is named like a secret")]);
  });
});

describe("E4: adding an error code", () => {
  it("E4: an ApiError oneOf member without x-error-statuses is refused with its pointer and the fix", () => {
    const doc = realSpec();
    doc.components.schemas.InsufficientFundsError = {
      ...structuredClone(doc.components.schemas.ConflictError),
      description: "The `insufficient_funds` error.",
      properties: {
        ...structuredClone(doc.components.schemas.ConflictError.properties),
        code: { type: "string", const: "insufficient_funds", description: "Always `insufficient_funds`." },
      },
    };
    delete doc.components.schemas.InsufficientFundsError["x-error-statuses"];
    doc.components.schemas.ApiError.oneOf.push({ $ref: "#/components/schemas/InsufficientFundsError" });
    const run = () => emitErrors(createSpec("openapi.yaml", doc));
    expect(run).toThrow(
      "#/components/schemas/InsufficientFundsError: E4: the ApiError member for insufficient_funds has no x-error-statuses",
    );
    expect(run).toThrow("InsufficientFundsEnvelope");
    doc.components.schemas.InsufficientFundsError["x-error-statuses"] = [402];
    expect(run).not.toThrow();
  });

  it("E4: an x-error-statuses that is not a list of 4xx/5xx statuses is refused", () => {
    expect(
      model((doc) => {
        doc.components.schemas.ConflictError["x-error-statuses"] = 409;
      }),
    ).toThrow("#/components/schemas/ConflictError/x-error-statuses: E4: expected a non-empty list of 4xx/5xx statuses");
  });
});
