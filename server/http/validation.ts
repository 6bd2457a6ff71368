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

/** The validators of one set of shared schemas and options, per part's rules: by schema object, then by its JSON. */
interface ValidatorCache {
  readonly bySchema: { readonly body: WeakMap<object, Validator>; readonly text: WeakMap<object, Validator> };
  readonly byJson: Map<string, Validator>;
}

/**
 * Compiled request validators by shared schemas and options, then by the part's rules (body or
 * text) and the schema. Ajv keeps what it compiled by schema object, but many routes build their
 * request schemas when they are registered (an inline `Type.Object(...)`, a schema Fastify rewrites
 * for headers), a new object for each server instance: every test server recompiled them. Ajv
 * compiles from the schema's JSON-visible content only, so the same JSON is the same validator; the
 * object is only the quicker path.
 */
const validators = new Map<string, ValidatorCache>();

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
    let body: ReturnType<typeof compile> | undefined;
    let text: ReturnType<typeof compile> | undefined;
    const compiled: ReturnType<ValidatorFactory> = (route) =>
      route.httpPart === 'body'
        ? (body ??= compile(BODY_OPTIONS))(route)
        : (text ??= compile(TEXT_OPTIONS))(route);
    // Plugins are functions, which JSON leaves out: a set of options with plugins is not cached.
    if ((shared?.plugins ?? []).length > 0) return compiled;
    const key = JSON.stringify([externalSchemas, shared?.customOptions]);
    let cache = validators.get(key);
    if (cache === undefined) {
      cache = { bySchema: { body: new WeakMap(), text: new WeakMap() }, byJson: new Map() };
      validators.set(key, cache);
    }
    const { bySchema, byJson } = cache;
    return (route) => {
      const part = route.httpPart === 'body' ? 'body' : 'text';
      const schema = route.schema as object;
      let validator = bySchema[part].get(schema);
      if (validator === undefined) {
        const json = `${part} ${JSON.stringify(schema)}`;
        validator = byJson.get(json);
        if (validator === undefined) {
          validator = compiled(route);
          byJson.set(json, validator);
        }
        bySchema[part].set(schema, validator);
      }
      return validator;
    };
  };
  return { compilersFactory: { buildValidator, buildSerializer } };
}

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const serializerFactory = SerializerSelector();

/** The serializers of one set of shared schemas and options: by schema object, then by its JSON. */
interface SerializerCache {
  readonly bySchema: WeakMap<object, Serializer>;
  readonly byJson: Map<string, Serializer>;
}

/** Compiled response serializers by shared schemas and options. */
const serializers = new Map<string, SerializerCache>();

/**
 * Response serializers as Fastify compiles them, kept for the process: a response schema is
 * compiled once however many server instances are built from the same routes. Many routes build
 * their response schemas when they are registered (`paginated(TokenSchema)`, an inline
 * `Type.Null(...)`), a new object for each instance, so the schema's JSON, which is all the
 * serializer is compiled from, finds them; the object is only the quicker path.
 */
const buildSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = serializerFactory(externalSchemas, serializerOptions);
  const key = JSON.stringify([externalSchemas, serializerOptions]);
  let cache = serializers.get(key);
  if (cache === undefined) {
    cache = { bySchema: new WeakMap(), byJson: new Map() };
    serializers.set(key, cache);
  }
  const { bySchema, byJson } = cache;
  return (route) => {
    const schema = route.schema as object;
    let serializer = bySchema.get(schema);
    if (serializer === undefined) {
      const json = JSON.stringify(schema);
      serializer = byJson.get(json);
      if (serializer === undefined) {
        serializer = compile(route);
        byJson.set(json, serializer);
      }
      bySchema.set(schema, serializer);
    }
    return serializer;
  };
};
