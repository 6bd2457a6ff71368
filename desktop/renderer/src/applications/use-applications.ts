import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The tenant's applications (the first 100: a tenant has a handful), shared by the screens that list them. */
export function useApplications() {
  return useQuery({
    queryKey: ['applications'],
    queryFn: () => unwrap(api.GET('/applications', { params: { query: { page: 1, size: 100 } } })),
  });
}
