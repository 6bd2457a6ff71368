import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * How request schemas are checked, for every route:
 *
 * - Bodies are JSON and arrive typed, so they are never coerced: `1` is not the string `"1"`, `null`
 *   is not `""` or `false`. A wrong type is a 400 naming the field.
 * - Query strings, path parameters and headers are text on the wire, so they are coerced to the
 *   schema's type (`size=5` → 5) and a single value to a one-item array (`?id=a` → `['a']`).
 * - Nothing is removed: a field a schema forbids is a 400, never silently dropped, so core checks
 *   such as "id cannot be changed" stay reachable. Schemas that should ignore unknown fields (the
 *   API is lenient about them, as the clients it serves expect) simply do not forbid them.
 * - Defaults declared in a schema are filled in.
 */
const BODY_OPTIONS = { coerceTypes: false, removeAdditional: false, useDefaults: true } as const;
const TEXT_OPTIONS = { coerceTypes: 'array', removeAdditional: false, useDefaults: true } as const;

type ValidatorFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;

type PoolOptions = NonNullable<Parameters<ReturnType<typeof AjvCompiler>>[1]>;

/**
 * One compiler pool for the process: its Ajv instances (one per set of shared schemas and options)
 * keep what they compiled, so a route schema (a module constant) is compiled once, not again for
 * every server instance built in this process.
 */
const pool = AjvCompiler();

type Validator = ReturnType<ReturnType<ValidatorFactory>>;

/**
 * What a compiler made from route schemas, kept for the process: by schema object, then by the
 * schema's JSON. Ajv and fast-json-stringify compile from a schema's JSON-visible content only, but
 * many routes build their schemas when they are registered (an inline `Type.Object(...)`,
 * `paginated(TokenSchema)`, a schema Fastify rewrites for headers), a new object for each server
 * instance: the JSON finds what an earlier instance compiled; the object is only the quicker path.
 */
interface CompiledCache<T> {
  readonly bySchema: WeakMap<object, T>;
  readonly byJson: Map<string, T>;
}

/** The cache kept under `key` (the compiler's shared schemas and options), made on first use. */
function cacheUnder<T>(caches: Map<string, CompiledCache<T>>, key: string): CompiledCache<T> {
  let cache = caches.get(key);
  if (cache === undefined) {
    cache = { bySchema: new WeakMap(), byJson: new Map() };
    caches.set(key, cache);
  }
  return cache;
}

/** What `cache` holds for `schema`, compiled now only when neither its object nor its JSON is there. */
function compiledFor<T>(cache: CompiledCache<T>, schema: object, compile: () => T): T {
  let compiled = cache.bySchema.get(schema);
  if (compiled === undefined) {
    const json = JSON.stringify(schema);
    compiled = cache.byJson.get(json);
    if (compiled === undefined) {
      compiled = compile();
      cache.byJson.set(json, compiled);
    }
    cache.bySchema.set(schema, compiled);
  }
  return compiled;
}

/**
 * Compilations deferred to a schema's first use and not yet done. A server compiles nothing when it
 * starts: Ajv and fast-json-stringify generate and compile code for every route's schemas, a large
 * share of a fresh process's start-up CPU (`bench/serve-start.ts`), mostly for routes a given
 * process never serves (a CLI's short-lived server, a test's). A schema's compilation runs at its
 * first request instead, once per process. A schema that cannot compile would then fail at its
 * first request, not at start: `compileDeferredSchemas` compiles everything still pending, so a
 * test proves every route's schemas compile.
 */
const deferred = new Set<() => void>();

/** Compiles every route schema whose compilation still waits for a first use; throws what a compiler throws. */
export function compileDeferredSchemas(): void {
  for (const compile of [...deferred]) compile();
}

/** `compile()`'s result, made at the first call of `get` (or by `compileDeferredSchemas`). */
function onFirstUse<T>(compile: () => T): () => T {
  let compiled: T | undefined;
  const now = (): T => {
    if (compiled === undefined) {
      // Out of the pending set even when it throws: `compileDeferredSchemas` reports a schema once,
      // and each request that uses it tries again (and fails as a 500).
      deferred.delete(now);
      compiled = compile();
    }
    return compiled;
  };
  deferred.add(now);
  return now;
}

/**
 * A validator that compiles at its first call. Fastify reads `schemaEnv` before each call (to pass
 * the parent object so a root value can be rewritten) and `errors` after a failed one; Ajv's other
 * properties are forwarded too, all from the compiled validator.
 */
function validatorOnFirstCall(compile: () => Validator): Validator {
  const validator = onFirstUse(compile);
  function lazy(this: unknown, data: unknown, context?: Parameters<Validator>[1]): boolean {
    const compiled = validator();
    const valid = compiled.call(this, data, context);
    lazy.errors = compiled.errors;
    return valid;
  }
  lazy.errors = undefined as Validator['errors'];
  for (const property of ['schema', 'schemaEnv', 'source', 'evaluated'] as const) {
    Object.defineProperty(lazy, property, { get: () => validator()[property], enumerable: true });
  }
  return lazy as unknown as Validator;
}

/** A response serializer that compiles at its first call. */
function serializerOnFirstCall(compile: () => Serializer): Serializer {
  const serializer = onFirstUse(compile);
  return (data) => serializer()(data);
}

/** Request validators by shared schemas, options and the part's rules (body or text). */
const validators = new Map<string, CompiledCache<Validator>>();

/** The `schemaController` option of `Fastify(...)` that applies the rules above. */
export function requestValidation(): FastifyServerOptions['schemaController'] {
  const buildValidator: ValidatorFactory = (externalSchemas, ajvOptions) => {
    const shared = ajvOptions as { customOptions?: object; plugins?: PoolOptions['plugins'] } | undefined;
    const compile = (customOptions: object) =>
      pool(externalSchemas as Parameters<typeof pool>[0], {
        plugins: shared?.plugins ?? [],
        customOptions: { ...shared?.customOptions, ...customOptions },
      });
    // Looked up in the pool at the first schema not already compiled (the pool keys its Ajv
    // instances by the JSON of the shared schemas and options, dear to compute for every server).
    let bodyCompiler: ReturnType<typeof compile> | undefined;
    let textCompiler: ReturnType<typeof compile> | undefined;
    const compiled: ReturnType<ValidatorFactory> = (route) =>
      route.httpPart === 'body'
        ? (bodyCompiler ??= compile(BODY_OPTIONS))(route)
        : (textCompiler ??= compile(TEXT_OPTIONS))(route);
    // Plugins are functions, which JSON leaves out: a set of options with plugins is not cached.
    if ((shared?.plugins ?? []).length > 0) return compiled;
    const key = JSON.stringify([externalSchemas, shared?.customOptions]);
    const body = cacheUnder(validators, `body ${key}`);
    const text = cacheUnder(validators, `text ${key}`);
    return (route) =>
      compiledFor(route.httpPart === 'body' ? body : text, route.schema as object, () =>
        validatorOnFirstCall(() => compiled(route)),
      );
  };
  return { compilersFactory: { buildValidator, buildSerializer } };
}

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const serializerFactory = SerializerSelector();

/** Compiled response serializers by shared schemas and options. */
const serializers = new Map<string, CompiledCache<Serializer>>();

/**
 * Response serializers as Fastify compiles them, kept for the process (`CompiledCache`): a response
 * schema is compiled once however many server instances are built from the same routes.
 */
const buildSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = serializerFactory(externalSchemas, serializerOptions);
  const cache = cacheUnder(serializers, JSON.stringify([externalSchemas, serializerOptions]));
  return (route) =>
    compiledFor(cache, route.schema as object, () => serializerOnFirstCall(() => compile(route)));
};
