#!/usr/bin/env node
// Stand-in for the TypeScript "skill-state-runtime" MCP server (v1.0.1), written from
// a behavioural specification of the reference (its public tools, messages and
// semantics). It is a
// benchmark comparator only: same SDK (1.30.0) and validator (zod 3.25.76, v3 API) as
// the reference, same tool surface and payloads, not the reference's own code.
//
//   node server.mjs                 # stdio (default)
//   node server.mjs --http --port 3299   # Streamable HTTP on 127.0.0.1:3299/mcp
//
// Not implemented: resources, prompts, parse_turn_response, the setup wizard, telemetry
// noise (unreachable through MCP in the reference anyway).

import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const NAME = "skill-state-runtime";
const VERSION = "1.0.1";
const LOG = `[${NAME}]`;

const INSTRUCTIONS = [
  "You are connected to a SKILL.state runtime (arXiv:2608.26263).",
  "There is NO conversation history: at every step you receive exactly three things \u2014 the immutable skill spec P, the current execution state \u03a3 (JSON), and the latest observation O.",
  "Keep ALL bookkeeping inside \u03a3 via state_update (\u0394\u03a3_t); put ALL deliberation inside reasoning_trace (R_t), which the runtime permanently discards.",
  "Never expect earlier tool results to be replayed \u2014 the prompt_payload IS your entire context.",
].join(" ");

// ----------------------------------------------------------------------------- helpers

/** A plain JSON object (not null, not an array). */
function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Deep copy of a JSON value. */
function deepCopy(value) {
  return value === null || typeof value !== "object" ? value : structuredClone(value);
}

/** Freeze a JSON value in place, recursively. */
function deepFreeze(value) {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function envNumber(name, fallback) {
  return Number(process.env[name]) || fallback;
}

/** A session error whose message is returned verbatim to the client. */
class SkillStateError extends Error {}

// ----------------------------------------------------------------------------- ⊕ merge (§5)

/**
 * Σ ⊕ ΔΣ: null deletes, objects merge recursively (a new key is only created when the
 * merged object is non-empty), arrays are deep-copied, scalars replace. Inputs are never
 * mutated; existing keys keep their position and new keys are appended.
 */
export function mergeState(current, delta) {
  const result = { ...current };
  for (const key of Object.keys(delta)) {
    const value = delta[key];
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      result[key] = structuredClone(value);
    } else if (typeof value === "object") {
      const base = isPlainObject(current[key]) ? current[key] : {};
      const merged = mergeState(base, value);
      // "Key exists" is an `in` test, as in the reference (it sees inherited names too).
      if (key in current || Object.keys(merged).length > 0) result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  return result;
}

// ----------------------------------------------------------------------------- state schema (§6)

function matchesType(value, type) {
  switch (type) {
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
    case "string":
    case "number":
    case "boolean":
      return typeof value === type;
    default:
      return true; // "any" and unknown type names always pass
  }
}

/** The reference's ad-hoc checker: returns the first failure reason, or null. */
export function validateStateSchema(state, schema) {
  if (!isPlainObject(schema) || Object.keys(schema).length === 0) return null;
  const { required, properties } = schema;
  if (Array.isArray(required) || isPlainObject(properties)) {
    if (Array.isArray(required)) {
      for (const key of required) {
        if (typeof key !== "string") continue;
        if (!(key in state) || state[key] === null || state[key] === undefined) {
          return `Missing required state field "${key}"`;
        }
      }
    }
    if (isPlainObject(properties)) {
      for (const [key, expected] of Object.entries(properties)) {
        if (!(key in state) || state[key] === null || state[key] === undefined) continue;
        let type;
        if (typeof expected === "string") type = expected;
        else if (isPlainObject(expected) && typeof expected.type === "string") type = expected.type;
        else continue;
        if (!matchesType(state[key], type)) {
          return `State field "${key}" has type "${typeof state[key]}", expected "${type}"`;
        }
      }
      if (schema.additionalProperties === false) {
        for (const key of Object.keys(state)) {
          if (!Object.hasOwn(properties, key)) {
            return `Unexpected state field "${key}" not allowed by schema`;
          }
        }
      }
    }
    return null;
  }
  for (const [key, typeDef] of Object.entries(schema)) {
    if (typeof typeDef !== "string") continue;
    const optional = typeDef.endsWith("?");
    const type = optional ? typeDef.slice(0, -1) : typeDef;
    const value = state[key];
    if (value === null || value === undefined) {
      if (!optional) return `Missing required state field "${key}"`;
      continue;
    }
    if (!matchesType(value, type)) {
      return `State field "${key}" has type "${typeof value}", expected "${type}"`;
    }
  }
  return null;
}

// ----------------------------------------------------------------------------- executors (§7)

/** The mock environment (§7.1). */
function mockExecutor(action, step) {
  const p = `[MOCK ENV \u00b7 step ${step}]`;
  if (typeof action === "string") {
    return {
      status: "ok",
      observation: `${p} Generic action executed successfully: "${action}". No side effects. (mock)`,
    };
  }
  switch (action.type) {
    case "echo":
      return {
        status: "ok",
        observation: `${p} echo \u2192 ${String(action.message ?? "(empty message)")}. (mock)`,
      };
    case "noop":
      return { status: "ok", observation: `${p} no-op action acknowledged; environment unchanged. (mock)` };
    case "fail":
      return {
        status: "failed",
        rejectStateTransition: Boolean(action.reject_transition),
        observation: `${p} ACTION FAILED \u2014 ${String(action.reason ?? "unspecified mock failure")}. Recover per skill procedure P. (mock)`,
      };
    case "complete":
      return {
        status: "completed",
        observation: `${p} SKILL COMPLETE \u2014 ${String(action.summary ?? "all objectives met")}. (mock)`,
      };
    default:
      return {
        status: "ok",
        observation: `${p} Structured action executed: ${JSON.stringify(action, null, 2)}. (mock)`,
      };
  }
}

/** The warehouse environment (§7.2): 500 shelves shared by every session, never reset. */
class WarehouseExecutor {
  constructor(shelfCount = 500) {
    this.shelves = new Map();
    for (let i = 0; i < shelfCount; i++) this.shelves.set(`shelf_${i}`, null);
  }

  execute(action, step) {
    const p = `[WAREHOUSE \u00b7 step ${step}]`;
    const reject = (text) => ({ status: "failed", rejectStateTransition: true, observation: `${p} ${text}` });
    let raw = "";
    if (typeof action === "string") raw = action.trim();
    else if (isPlainObject(action) && typeof action.command === "string") raw = action.command.trim();
    const parts = raw.split(/\s+/);
    const verb = parts[0].toLowerCase();
    const shelves = this.shelves;
    if (verb === "store") {
      const [, item, shelf] = parts;
      if (!item || !shelf) return reject("Error: Usage: Store <item_id> <shelf_id>");
      if (!shelves.has(shelf)) return reject(`Error: Shelf "${shelf}" does not exist.`);
      const existing = shelves.get(shelf);
      if (existing !== null) {
        return reject(
          `REJECTED: Shelf "${shelf}" is already occupied by "${existing}". Cannot store "${item}". State transition rejected.`,
        );
      }
      shelves.set(shelf, item);
      return { status: "ok", observation: `${p} Success: Stored "${item}" on ${shelf}.` };
    }
    if (verb === "ship") {
      const [, item, shelf] = parts;
      if (!item || !shelf) return reject("Error: Usage: Ship <item_id> <shelf_id>");
      const current = shelves.get(shelf);
      if (current !== item) {
        return reject(
          `REJECTED: Shelf "${shelf}" does not contain "${item}" (contains "${current ?? "empty"}"). State transition rejected.`,
        );
      }
      shelves.set(shelf, null);
      return { status: "ok", observation: `${p} Success: Shipped "${item}" from ${shelf}.` };
    }
    if (verb === "move") {
      const [, item, from, to] = parts;
      if (!item || !from || !to) return reject("Error: Usage: Move <item_id> <old_shelf> <new_shelf>");
      if (shelves.get(from) !== item) {
        return reject(`REJECTED: Old shelf "${from}" does not contain "${item}". State transition rejected.`);
      }
      if (shelves.get(to) !== null) {
        return reject(`REJECTED: New shelf "${to}" is already occupied. State transition rejected.`);
      }
      shelves.set(from, null);
      shelves.set(to, item);
      return { status: "ok", observation: `${p} Success: Moved "${item}" from ${from} to ${to}.` };
    }
    if (verb === "wait") {
      return { status: "ok", observation: `${p} Wait acknowledged; warehouse inventory unchanged.` };
    }
    if (verb === "complete") {
      return { status: "completed", observation: `${p} TASK COMPLETE.` };
    }
    return reject(`Unknown action "${raw}". Allowed actions: Store, Ship, Move, Wait, Complete.`);
  }
}

const warehouse = new WarehouseExecutor();
const executors = new Map([
  ["mock", mockExecutor],
  ["warehouse", (action, step) => warehouse.execute(action, step)],
]);

// ----------------------------------------------------------------------------- session store (§1, §4, §11)

const DRIFT_WARNING =
  "environment_observation does not match the latest observation the runtime issued \u2014 possible context drift or hallucinated observation. The authoritative observation is returned in prompt_payload.latest_observation.";
const REJECT_WARNING = "Action was rejected by environment; state patch rolled back.";

class SessionStore {
  constructor() {
    this.sessions = new Map();
    this.locks = new Map(); // session id -> tail of its promise chain
  }

  get maxSessions() {
    return envNumber("SKILL_STATE_MAX_SESSIONS", 256);
  }

  get ttlMs() {
    return envNumber("SKILL_STATE_SESSION_TTL_HOURS", 24) * 3600 * 1000;
  }

  get size() {
    return this.sessions.size;
  }

  /** Lazy TTL eviction, based on meta.updatedAt. */
  sweep() {
    const cutoff = Date.now() - this.ttlMs;
    for (const [id, session] of this.sessions) {
      if (Date.parse(session.meta.updatedAt) < cutoff) {
        this.sessions.delete(id);
        this.locks.delete(id);
      }
    }
  }

  get(id) {
    const session = this.sessions.get(id);
    if (!session) {
      const ids = [...this.sessions.keys()];
      throw new SkillStateError(
        `Unknown SKILL.state session "${id}". Active sessions: ${ids.length ? ids.join(", ") : "(none)"}. Call initialize_skill first.`,
      );
    }
    return session;
  }

  /** Run fn under the session's mutex (a promise chain; a failure does not poison it). */
  withLock(id, fn) {
    const tail = this.locks.get(id) ?? Promise.resolve();
    const run = tail.then(fn);
    this.locks.set(
      id,
      run.then(
        () => undefined,
        () => undefined,
      ),
    );
    return run;
  }

  create({ id, spec, initialState, stateSchema, environment }) {
    this.sweep();
    if (this.sessions.has(id)) {
      throw new SkillStateError(
        `SKILL.state session "${id}" already exists. Close it with close_session or pick another session_id.`,
      );
    }
    const limit = this.maxSessions;
    if (this.sessions.size >= limit) {
      throw new SkillStateError(
        `Session limit reached (${limit}). Close idle sessions with close_session or raise SKILL_STATE_MAX_SESSIONS.`,
      );
    }
    if (stateSchema !== undefined) {
      const reason = validateStateSchema(initialState, stateSchema);
      if (reason) throw new SkillStateError(`Initial state violates state_schema: ${reason}`);
    }
    const now = new Date().toISOString();
    const session = {
      id,
      spec: deepFreeze(deepCopy(spec)),
      state: deepCopy(initialState),
      stateSchema,
      environment,
      meta: {
        createdAt: now,
        updatedAt: now,
        stepCount: 0,
        status: "active",
        reasoningRetained: false,
        lastAction: null,
        lastObservation: `Session "${id}" initialized (step 0). Awaiting the first execute_step call.`,
        environment,
      },
    };
    this.sessions.set(id, session);
    this.locks.set(id, Promise.resolve());
    return session;
  }

  runStep(id, { stateUpdate, action, observation }) {
    this.get(id);
    return this.withLock(id, () => {
      const session = this.get(id);
      const meta = session.meta;
      const warnings = [];
      if (observation !== meta.lastObservation) warnings.push(DRIFT_WARNING);
      const candidate = mergeState(session.state, stateUpdate);
      if (session.stateSchema !== undefined) {
        const reason = validateStateSchema(candidate, session.stateSchema);
        if (reason) {
          meta.lastObservation = `[STATE SCHEMA VIOLATION] ${reason}. State \u03a3_${meta.stepCount} remains unchanged (rollback-retry).`;
          meta.updatedAt = new Date().toISOString();
          warnings.push(`State schema violation: ${reason}`);
          return { status: "failed", rolledBack: true, warning: warnings.join("; ") };
        }
      }
      let outcome;
      try {
        const executor = executors.get(session.environment);
        if (!executor) {
          throw new Error(
            `Unknown environment executor "${session.environment}". Registered: ${[...executors.keys()].join(", ")}`,
          );
        }
        outcome = executor(action, meta.stepCount + 1);
      } catch (error) {
        outcome = {
          status: "failed",
          rejectStateTransition: true,
          observation: `Action execution error: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      meta.lastAction = deepCopy(action);
      meta.lastObservation = outcome.observation;
      meta.updatedAt = new Date().toISOString();
      if (outcome.rejectStateTransition) {
        warnings.push(REJECT_WARNING);
        return { status: outcome.status, rolledBack: true, warning: warnings.join("; ") };
      }
      session.state = candidate;
      meta.stepCount += 1;
      if (outcome.status === "completed") meta.status = "completed";
      return {
        status: outcome.status,
        rolledBack: false,
        warning: warnings.length ? warnings.join("; ") : undefined,
      };
    });
  }

  inject(id, { observation, statePatch }) {
    this.get(id);
    return this.withLock(id, () => {
      const session = this.get(id);
      if (statePatch !== undefined) session.state = mergeState(session.state, statePatch);
      session.meta.lastObservation = observation;
      session.meta.updatedAt = new Date().toISOString();
      return session;
    });
  }

  close(id) {
    const session = this.get(id);
    const snapshot = { step: session.meta.stepCount, state: deepCopy(session.state) };
    this.sessions.delete(id);
    this.locks.delete(id);
    return snapshot;
  }
}

export const store = new SessionStore();

// ----------------------------------------------------------------------------- MCP surface (§3, §4)

/** A recursive JSON value; zod v3 drops `__proto__` keys at every depth of records. */
const jsonValue = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(jsonValue)]),
);
const jsonObject = z.record(jsonValue);
const sessionId = z.string().min(1).describe("SKILL.state session id.");

function ok(data) {
  return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data };
}

function fail(error) {
  const text =
    error instanceof SkillStateError
      ? error.message
      : `SKILL.state runtime error: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: "text", text }], isError: true };
}

function payload(session) {
  return {
    skill_spec: session.spec,
    current_state: deepCopy(session.state),
    latest_observation: session.meta.lastObservation,
  };
}

function guarded(handler) {
  return async (args) => {
    try {
      return ok(await handler(args));
    } catch (error) {
      return fail(error);
    }
  };
}

export function buildMcpServer() {
  const server = new McpServer({ name: NAME, version: VERSION }, { instructions: INSTRUCTIONS });

  server.registerTool(
    "initialize_skill",
    {
      title: "Initialize a SKILL.state session",
      description:
        "Create a new SKILL.state execution session. Stores the immutable skill specification P and the initial execution state \u03a3_0, then returns the initial prompt payload (P, \u03a3_0, boot observation). From this point on, the LLM must treat that payload as its ENTIRE context \u2014 there is no message history. Advances happen exclusively through execute_step.",
      inputSchema: {
        session_id: sessionId,
        skill_specification: z
          .union([z.string().min(1), jsonObject])
          .describe("Immutable skill specification P (SKILL.md text or a JSON object)."),
        initial_state: jsonObject.default({}).describe("Initial execution state \u03a3_0."),
        state_schema: jsonObject.optional().describe("Optional schema for \u03a3."),
        environment: z.enum(["mock", "warehouse"]).default("mock").describe("Environment executor."),
      },
    },
    guarded(async (args) => {
      const session = store.create({
        id: args.session_id,
        spec: args.skill_specification,
        initialState: args.initial_state,
        stateSchema: args.state_schema,
        environment: args.environment,
      });
      return {
        session_id: session.id,
        environment: session.environment,
        prompt_payload: payload(session),
        meta: { step: session.meta.stepCount, status: session.meta.status, reasoning_retained: false },
      };
    }),
  );

  server.registerTool(
    "execute_step",
    {
      title: "Execute one SKILL.state step",
      description:
        "Advance a skill session by exactly one step t \u2192 t+1. INPUT: reasoning_trace R_t (Chain-of-Thought \u2014 discarded by the runtime and never stored), state_update \u0394\u03a3_t (sparse JSON patch; null deletes a key), action a_t, and the environment_observation O_t you consumed this turn. LOGIC: validate \u0394\u03a3_t \u2192 apply \u03a3_{t+1} = \u03a3_t \u2295 \u0394\u03a3_t (null-deletion semantics) \u2192 execute a_t \u2192 obtain observation O_{t+1}. OUTPUT: the strict next-turn tuple {skill_spec: P, current_state: \u03a3_{t+1}, latest_observation: O_{t+1}}. Nothing else is retained \u2014 no history, no reasoning, no old observations.",
      inputSchema: {
        session_id: sessionId,
        reasoning_trace: z.string().describe("R_t: discarded, never stored."),
        state_update: jsonObject.describe("\u0394\u03a3_t: sparse patch; null deletes a key."),
        action: z.union([z.string().min(1), jsonObject]).describe("a_t: a command string or a JSON object."),
        environment_observation: z.string().describe("O_t: the observation consumed this turn."),
      },
    },
    guarded(async (args) => {
      const outcome = await store.runStep(args.session_id, {
        stateUpdate: args.state_update,
        action: args.action,
        observation: args.environment_observation,
      });
      const session = store.get(args.session_id);
      const meta = {
        step: session.meta.stepCount,
        status: session.meta.status,
        reasoning_retained: false,
        action_status: outcome.status,
      };
      if (outcome.warning !== undefined) meta.warning = outcome.warning;
      return {
        session_id: session.id,
        step: session.meta.stepCount,
        prompt_payload: payload(session),
        meta,
      };
    }),
  );

  server.registerTool(
    "inject_observation",
    {
      title: "Inject an external observation or state change",
      description:
        "Deliver an asynchronous environment observation / event alert into an active session (e.g. background alerts, customer orders, or external world drift per arXiv:2608.26263 \u00a75.4). Does not advance the step count.",
      inputSchema: {
        session_id: sessionId,
        observation: z.string().min(1).describe("The observation to deliver."),
        state_patch: jsonObject.optional().describe("Optional patch merged with \u2295."),
      },
    },
    guarded(async (args) => {
      const session = await store.inject(args.session_id, {
        observation: args.observation,
        statePatch: args.state_patch,
      });
      return {
        session_id: session.id,
        prompt_payload: payload(session),
        meta: { step: session.meta.stepCount, status: session.meta.status, reasoning_retained: false },
      };
    }),
  );

  server.registerTool(
    "close_session",
    {
      title: "Close a SKILL.state session",
      description:
        "Housekeeping: permanently remove a skill session and its execution state from the runtime. The final state \u03a3 is returned as a snapshot so the run can be audited after removal.",
      inputSchema: { session_id: sessionId },
    },
    guarded(async (args) => {
      const { step, state } = store.close(args.session_id);
      return { session_id: args.session_id, closed: true, final_step: step, final_state: state };
    }),
  );

  return server;
}

// ----------------------------------------------------------------------------- transports (§11)

function sendJson(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function serveHttp(port) {
  const transports = new Map(); // MCP session id -> transport

  async function handleMcp(req, res) {
    const header = req.headers["mcp-session-id"];
    const known = typeof header === "string" ? transports.get(header) : undefined;
    if (known) {
      await known.handleRequest(req, res);
      return;
    }
    if (req.method !== "POST") {
      sendJson(res, 404, { error: "Unknown MCP session" });
      return;
    }
    const text = await readBody(req);
    let body;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error("Request body is not valid JSON");
      }
    }
    if (!body || !isInitializeRequest(body)) {
      sendJson(res, 400, {
        jsonrpc: "2.0",
        error: { code: -32600, message: "Bad Request: send an initialize request first" },
        id: null,
      });
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sid) => {
        transports.set(sid, transport);
        console.error(`${LOG} MCP session opened: ${sid}`);
      },
    });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && transports.delete(sid)) console.error(`${LOG} MCP session closed: ${sid}`);
    };
    await buildMcpServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const httpServer = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    try {
      if (path === "/health") {
        sendJson(res, 200, {
          status: "ok",
          server: { name: NAME, version: VERSION },
          active_skill_sessions: store.size,
          active_mcp_sessions: transports.size,
        });
      } else if (path === "/mcp") {
        await handleMcp(req, res);
      } else {
        sendJson(res, 404, { error: "Not found. MCP endpoint is POST /mcp." });
      }
    } catch (error) {
      console.error(`${LOG} HTTP error: ${error}`);
      if (!res.headersSent) sendJson(res, 500, { error: "Internal server error" });
      else res.end();
    }
  });
  // The reference binds every interface; the stand-in stays on loopback.
  await new Promise((resolve) => httpServer.listen(port, "127.0.0.1", resolve));
  console.error(`${LOG} v${VERSION} listening on http://127.0.0.1:${port}/mcp (skill sessions: ${store.size})`);
}

async function serveStdio() {
  await buildMcpServer().connect(new StdioServerTransport());
  console.error(`${LOG} v${VERSION} ready on stdio \u00b7 sessions: ${store.size}`);
}

function usage() {
  console.error(
    [
      `${NAME} v${VERSION} (stand-in written from the behavioural spec)`,
      "usage: node server.mjs [--stdio] | --http [--port N]",
      "  --http       Streamable HTTP on 127.0.0.1 (--port N, else SKILL_STATE_PORT, else 3211)",
      "env: SKILL_STATE_MAX_SESSIONS (256), SKILL_STATE_SESSION_TTL_HOURS (24), SKILL_STATE_PORT (3211)",
    ].join("\n"),
  );
}

async function main(argv) {
  if (argv.includes("--help") || argv.includes("-h") || argv.includes("--info")) {
    usage();
    return;
  }
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      console.error(`${LOG} received ${signal}, shutting down`);
      process.exit(0);
    });
  }
  if (argv.includes("--http")) {
    const at = argv.indexOf("--port");
    const port = (at >= 0 && Number(argv[at + 1])) || Number(process.env.SKILL_STATE_PORT) || 3211;
    await serveHttp(port);
  } else {
    await serveStdio();
  }
}

// Run only as a program, so that a check script can import mergeState & co.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`${LOG} fatal: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  });
}
