import { describe, expect, it } from "vitest";
import { checkFile, importsOf, MESSAGE_LEDGER, sourceFiles, WORKER_LAYERS, workerUnit } from "./check-boundaries";

const rules = (path: string, source: string) => checkFile({ path, source }).map((v) => v.rule);

describe("importsOf", () => {
  it("finds static, multi-line, type-only, side-effect, re-export and dynamic imports, and skips comments", () => {
    const source = [
      'import { a } from "./a";',
      "import {",
      "  b,",
      "  type C,",
      '} from "../b";',
      'import type { AppType } from "../../worker/app";',
      'import "./styles.css";',
      'export { d } from "./d";',
      'export * from "./e";',
      'const f = () => import("./f");',
      '// import { g } from "./g";',
      '/* import { h } from "./h"; */',
    ].join("\n");
    expect(importsOf(source)).toEqual([
      { specifier: "./a", typeOnly: false, line: 1 },
      { specifier: "../b", typeOnly: false, line: 2 },
      { specifier: "../../worker/app", typeOnly: true, line: 6 },
      { specifier: "./styles.css", typeOnly: false, line: 7 },
      { specifier: "./d", typeOnly: false, line: 8 },
      { specifier: "./e", typeOnly: false, line: 9 },
      { specifier: "./f", typeOnly: false, line: 10 },
    ]);
  });
});

describe("the Worker's layers", () => {
  it("let a module import down the layers, never up or beside, and keep routes off the database", () => {
    expect(rules("src/worker/routes/auth.ts", 'import { register } from "../auth/registration";')).toEqual([]);
    expect(rules("src/worker/billing/invitations.ts", 'import type { SignUpClaims } from "../auth/sign-up-claims";')).toEqual([]);
    expect(rules("src/worker/auth/registration.ts", 'import { signUpClaims } from "../billing/invitations";')).toEqual([
      "the Worker's layers point down: src/worker/auth/ never imports src/worker/billing/, a layer above it",
    ]);
    expect(rules("src/worker/messaging/dispatch.ts", 'import { refund } from "../billing/refunds";')).toEqual([
      "the Worker's layers point down: src/worker/messaging/ never imports src/worker/billing/, beside it in the same layer",
    ]);
    expect(rules("src/worker/context.ts", 'import type { SessionUser } from "./auth/session-user";')).toEqual([
      "the Worker's layers point down: src/worker/context never imports src/worker/auth/, a layer above it",
    ]);
    expect(rules("src/worker/routes/driver.ts", 'import type { Db } from "../db/client";')).toEqual([
      "routes never import the database (src/worker/db): they validate, call a service and answer",
    ]);
    expect(rules("src/worker/routes/driver.ts", 'import { eq } from "drizzle-orm";')).toEqual([
      "routes never query the database (drizzle-orm): they validate, call a service and answer",
    ]);
    expect(rules("src/worker/routes/driver.test.ts", 'import { eq } from "drizzle-orm";')).toEqual([]);
    expect(rules("src/worker/driver/dashboard.ts", 'import { pagingSchema } from "../routes/params";')).toHaveLength(1);
  });

  it("leave the Worker's tests and their fixtures out, and ask for a new folder to be placed", () => {
    expect(rules("src/worker/auth/registration.test.ts", 'import { signUpClaims } from "../billing/invitations";')).toEqual([]);
    expect(rules("src/worker/platform/capture-session.ts", 'import { fixture } from "../test/fixtures";')).toEqual([]);
    expect(rules("src/worker/reports/weekly.ts", 'import { db } from "../db/client";')).toEqual([
      "src/worker/reports/ is in no layer of WORKER_LAYERS (scripts/check-boundaries.ts): place it",
    ]);
  });

  it("place every folder and top-level module of src/worker in one layer", async () => {
    const { readdirSync } = await import("node:fs");
    const units = readdirSync("src/worker", { withFileTypes: true })
      .filter((e) => (e.isDirectory() ? e.name !== "test" : /\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name)))
      .map((e) => workerUnit(`src/worker/${e.name}${e.isDirectory() ? "/x.ts" : ""}`));
    for (const unit of units)
      expect(
        WORKER_LAYERS.filter((layer) => layer.includes(unit!)),
        String(unit),
      ).toHaveLength(1);
  });
});

describe("checkFile", () => {
  it("refuses raw D1 statements in the Worker, but not in its tests", () => {
    const raw = 'await env.DB.prepare("SELECT 1").first();';
    expect(rules("src/worker/messaging/recover-stalled-work.ts", raw)).toEqual([
      "the Worker queries D1 only through drizzle (src/worker/db/client.ts), never with raw statements",
    ]);
    expect(rules("src/worker/messaging/recover-stalled-work.ts", "await db.select().from(campaigns);")).toEqual([]);
    expect(rules("src/worker/messaging/recover-stalled-work.test.ts", raw)).toEqual([]);
    expect(rules("src/worker/test/fixtures.ts", raw)).toEqual([]);
  });

  it("lets only the message ledger write campaign_messages, through drizzle or raw SQL, under any name", () => {
    const only = "only the message ledger (src/worker/messaging/message-ledger.ts, message-receipts.ts) writes campaign_messages";
    const writes = [
      'await db.update(campaignMessages).set({ status: "sent" }).where(held);',
      "const m = campaignMessages;\nawait db.update(m).set({ requeuedAt: now });",
      'import { campaignMessages as cm } from "../db/schema";\ndb.delete(cm).where(old);',
      "db.insert( campaignMessages ).values(rows);",
      `const m = campaignMessages;\nawait db.run(sql\`INSERT OR IGNORE INTO \${m} (campaign_id) SELECT 1\`);`,
      "await db.run(sql`update campaign_messages SET status = 'pending'`);",
      'await db.run(sql`DELETE FROM "campaign_messages" WHERE id = 1`);',
    ];
    for (const source of writes) {
      expect(rules("src/worker/messaging/dispatch.ts", source), source).toEqual([only]);
      expect(rules("src/worker/account/erase.ts", source), source).toEqual([only]);
      for (const ledger of MESSAGE_LEDGER) expect(rules(ledger, source), ledger).toEqual([]);
      expect(rules("src/worker/messaging/dispatch.test.ts", source)).toEqual([]);
      expect(rules("src/worker/test/campaign-queue.ts", source)).toEqual([]);
    }
    expect(rules("src/worker/messaging/dispatch.ts", "// db.update(campaignMessages)\nconst id = campaignMessages.id;\ndb.update(users);")).toEqual([]);
    const reads = [
      "await db.select({ id: campaignMessages.id }).from(campaignMessages).where(open);",
      `const m = campaignMessages;\nawait db.update(campaigns).set({ total: sql\`(SELECT count(*) FROM \${m})\` });`,
      "db.select().from(campaigns).innerJoin(campaignMessages, on);",
    ];
    for (const source of reads) expect(rules("src/worker/messaging/campaign-reads.ts", source), source).toEqual([]);
  });

  it("finds no module of the Worker but the message ledger writing campaign_messages", () => {
    const writers = sourceFiles(".", "src/worker")
      .flatMap(checkFile)
      .filter((v) => v.rule.includes("writes campaign_messages"))
      .map((v) => `${v.file}:${v.line}`);
    expect(writers).toEqual([]);
  });

  it("lets the D1 metering wrapper forward drizzle's statements, and only it", () => {
    const forward = "prepare: (query: string) => new MeteredStatement(d1.prepare(query), isRead(query), usage),";
    expect(rules("src/worker/db/metered-d1.ts", forward)).toEqual([]);
    expect(rules("src/worker/db/client.ts", forward)).toEqual([
      "the Worker queries D1 only through drizzle (src/worker/db/client.ts), never with raw statements",
    ]);
  });

  it("keeps features apart, sub-folders of one feature included", () => {
    expect(rules("src/app/features/auth/LoginPage.tsx", 'import { x } from "../profile/api";')).toEqual(["features never import each other (auth → profile)"]);
    expect(rules("src/app/features/admin/tools/ToolsPage.tsx", 'import { x } from "../../auth/api";')).toEqual([
      "features never import each other (admin → auth)",
    ]);
    expect(rules("src/app/features/admin/tools/ToolsPage.tsx", 'import { x } from "../api";')).toEqual([]);
    expect(rules("src/app/router.tsx", 'const p = () => import("./features/admin/tools/ToolsPage");')).toEqual([]);
  });

  it("lets the SPA take only the AppType from the Worker, as a type", () => {
    expect(rules("src/app/lib/api-client.ts", 'import type { AppType } from "../../worker/app";')).toEqual([]);
    expect(rules("src/app/lib/api-client.ts", 'import { app } from "../../worker/app";')).toHaveLength(1);
    expect(rules("src/app/features/auth/api.ts", 'import type { User } from "../../../worker/auth/sign-in-flow";')).toHaveLength(1);
    expect(rules("src/worker/routes/user.ts", 'import { x } from "../../app/lib/session";')).toEqual(["the Worker never imports the SPA"]);
  });

  it("keeps src/shared pure", () => {
    expect(rules("src/shared/phone.ts", 'import { z } from "zod";\nimport { a } from "./paging";')).toEqual([]);
    expect(rules("src/shared/phone.ts", 'import { db } from "../worker/db/client";')).toEqual(["src/shared imports only src/shared"]);
    expect(rules("src/shared/phone.ts", 'import { Hono } from "hono";')).toHaveLength(1);
    expect(rules("src/shared/phone.ts", 'import { env } from "cloudflare:workers";')).toHaveLength(1);
    expect(rules("src/shared/phone.test.ts", 'import { it } from "vitest";')).toEqual([]);
    expect(rules("src/shared/phone.ts", 'import { it } from "vitest";')).toHaveLength(1);
  });

  it("keeps lib and components apart, and both out of the features", () => {
    expect(rules("src/app/lib/session.tsx", 'import { Splash } from "../components/ui/Splash";')).toEqual(["src/app/lib never imports src/app/components"]);
    expect(rules("src/app/components/ui/Pager.tsx", 'import { api } from "../../lib/api-client";')).toEqual(["src/app/components never imports src/app/lib"]);
    expect(rules("src/app/lib/session.tsx", 'import { x } from "../features/admin/api";')).toEqual(["src/app/lib never imports a feature"]);
    expect(rules("src/app/components/ui/Pager.tsx", 'import { x } from "../../../shared/paging";')).toEqual([]);
  });

  it("keeps the routing and the embedded payments pages apart from the features, meeting in the route table", () => {
    expect(rules("src/app/routing/Guard.tsx", 'import { x } from "../features/auth/api";')).toEqual(["src/app/routing never imports a feature"]);
    expect(rules("src/app/embedded-payments/LocalCheckoutPage.tsx", 'import { money } from "../features/billing/format";')).toEqual([
      "src/app/embedded-payments never imports a feature",
    ]);
    expect(rules("src/app/features/auth/LoginPage.tsx", 'import { readResume } from "../../routing/resume";')).toEqual([
      "features never import src/app/routing",
    ]);
    expect(rules("src/app/features/billing/reseller/ResellerPage.tsx", 'import { x } from "../../../embedded-payments/api";')).toEqual([
      "features never import src/app/embedded-payments",
    ]);
    expect(rules("src/app/routing/Guard.tsx", 'import { useSession } from "../lib/session";\nimport { Splash } from "../components/ui/Splash";')).toEqual([]);
    expect(
      rules(
        "src/app/routes.tsx",
        'import type { GuardLevel } from "./routing/post-sign-in";\nconst p = () => import("./embedded-payments/LocalCheckoutPage");',
      ),
    ).toEqual([]);
  });

  it("lets only the typed client fetch the API", () => {
    expect(rules("src/app/layouts/SiteFooter.tsx", 'const res = await fetch("/api/status/health");')).toEqual([
      "the SPA calls the API only through the typed client (src/app/lib/api-client.ts)",
    ]);
    expect(rules("src/app/lib/api-client.ts", "return await fetch(input, { ...init, headers });")).toEqual([]);
    expect(rules("src/app/features/auth/ChatWidget.tsx", "script.src = identity.scriptUrl;")).toEqual([]);
  });
});
