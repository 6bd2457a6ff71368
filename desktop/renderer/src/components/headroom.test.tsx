// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { VaultHeadroom } from '../api/client';
import { Headroom, formatSize, headroomBars } from './headroom';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

const embedded: VaultHeadroom = {
  warn_at: 0.8,
  database: { bytes: 1280 * MIB, limit_bytes: 1536 * MIB, used: 1280 / 1536 },
  disk: { free_bytes: 40 * GIB, total_bytes: 100 * GIB, reserve_bytes: 64 * MIB, used: 0.6 },
};

const postgres: VaultHeadroom = {
  warn_at: 0.8,
  database: { bytes: 12 * MIB, limit_bytes: null, used: null },
  disk: null,
};

afterEach(cleanup);

describe('the headroom bars', () => {
  it('give each gauge its figures, marked near the limit from the share the server warns at', () => {
    expect(headroomBars(embedded)).toEqual([
      { label: 'Database', used: 1280 / 1536, near: true, figures: '1.3 GiB of 1.5 GiB' },
      {
        label: 'Disk',
        used: 0.6,
        near: false,
        figures: '40.0 GiB free of 100.0 GiB; 64.0 MiB kept in reserve',
      },
    ]);
  });

  it('say that PostgreSQL has no size limit, and show no disk there', () => {
    expect(headroomBars(postgres)).toEqual([
      { label: 'Database', used: null, near: false, figures: '12.0 MiB; no size limit on PostgreSQL' },
    ]);
  });

  it('render as meters with their figures', () => {
    render(<Headroom headroom={embedded} />);
    const database = screen.getByRole('meter', { name: /^Database/ });
    expect(database.getAttribute('value')).toBe(String(1280 / 1536));
    expect(screen.getByText(/1\.3 GiB of 1\.5 GiB \(83 %, near the limit\)/)).toBeTruthy();
    expect(screen.getByText(/40\.0 GiB free of 100\.0 GiB; 64\.0 MiB kept in reserve \(60 %\)/)).toBeTruthy();
    cleanup();
    render(<Headroom headroom={postgres} />);
    expect(screen.queryByRole('meter')).toBeNull();
    expect(screen.getByText('12.0 MiB; no size limit on PostgreSQL')).toBeTruthy();
  });

  it('write sizes in binary units', () => {
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(1536 * MIB)).toBe('1.5 GiB');
  });
});
