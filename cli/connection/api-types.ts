import type { ClientPathsWithMethod, MethodResponse } from 'openapi-fetch';
import type { ApiClient, paths } from '../../client/api-client.ts';

/**
 * Names for the API's own shapes, read off the client generated from the server's OpenAPI document
 * (client/schema.d.ts): a route or schema change the CLI does not follow fails the type check.
 */

/** The body of a 2xx answer of `method` on `path`. */
export type ApiAnswer<
  Method extends 'get' | 'post' | 'put' | 'patch' | 'delete',
  Path extends ClientPathsWithMethod<ApiClient, Method>,
> = MethodResponse<ApiClient, Method, Path>;

/** The body `method` on `path` takes (whatever its media type). */
export type ApiRequestBody<
  Path extends keyof paths,
  Method extends keyof paths[Path],
> = paths[Path][Method] extends {
  requestBody?: { content: infer Content };
}
  ? Content[keyof Content]
  : never;

/** The query parameters `method` on `path` takes. */
export type ApiQuery<
  Path extends keyof paths,
  Method extends keyof paths[Path],
> = paths[Path][Method] extends {
  parameters: { query?: infer Query };
}
  ? NonNullable<Query>
  : never;
