import { it } from 'vitest';
it.todo('console token access');
