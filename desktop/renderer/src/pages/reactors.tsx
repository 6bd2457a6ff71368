import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Formulas } from '../reactors/formulas';
import { Reactors } from '../reactors/reactor-list';

export function ReactorsPage() {
  const formulas = useQuery({
    queryKey: ['reactor-formulas'],
    queryFn: () => unwrap(api.GET('/reactor-formulas', { params: { query: { page: 1, size: 100 } } })),
  });
  const reactors = useQuery({
    queryKey: ['reactors'],
    queryFn: () => unwrap(api.GET('/reactors', { params: { query: { page: 1, size: 100 } } })),
  });
  return (
    <section aria-labelledby="reactors-title">
      <h1 id="reactors-title">Reactors</h1>
      <Formulas query={formulas} />
      <Reactors query={reactors} formulas={formulas.data?.data ?? []} />
    </section>
  );
}
