import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface BuilderConfig {
  appId: string;
  productName: string;
  icon: string;
  asar: boolean;
  files: string[];
  electronFuses: Record<string, boolean>;
  linux: { target: string[] };
  mac: { target: string[] };
  win: { target: string[] };
}

const config = parse(read('electron-builder.yml')) as BuilderConfig;
const pkg = JSON.parse(read('package.json')) as {
  main: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const buildIncludes = (JSON.parse(read('tsconfig.build.json')) as { include: string[] }).include;

/** The folder a files pattern names, without its glob tail. */
const base = (pattern: string) => pattern.replace(/\/\*\*.*$/, '');

describe('electron-builder.yml', () => {
  it('names the app, its icon, asar and the installers of each platform', () => {
    expect(config.appId).toBe('dev.svc-vault.console');
    expect(config.productName).toBe('svc vault');
    expect(existsSync(join(root, config.icon))).toBe(true);
    expect(readFileSync(join(root, config.icon)).subarray(1, 4).toString()).toBe('PNG');
    expect(config.asar).toBe(true);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('packages only files that exist in the tree or that `npm run build` produces', () => {
    for (const pattern of config.files.filter((p) => !p.startsWith('!'))) {
      const folder = base(pattern);
      if (folder === 'dist/package.json') {
        // tsc emits the package.json that the compiled code imports (its version).
        expect(read('desktop/main/desktop-shell.ts')).toContain("'../../package.json'");
      } else if (folder.startsWith('dist/')) {
        const source = folder.slice('dist/'.length);
        expect(existsSync(join(root, source)), source).toBe(true);
        expect(buildIncludes, pattern).toContain(source);
      } else if (folder === 'desktop/start-screen/dist') {
        // The start screen's build (esbuild) writes there; `npm run build` runs it.
        expect(pkg.scripts.build).toContain('build:start-screen');
        expect(pkg.scripts['build:start-screen']).toContain('scripts/build-start-screen.ts');
      } else if (folder === 'desktop/renderer/dist') {
        // The console's own build (vite) writes there; `npm run build` runs it.
        expect(pkg.scripts.build).toContain('build:console');
        expect(pkg.scripts['build:console']).toContain('desktop/renderer/vite.config.ts');
      } else {
        expect(existsSync(join(root, folder)), pattern).toBe(true);
      }
    }
  });

  it('starts the compiled main process and its compiled preload', () => {
    expect(pkg.main).toBe('dist/desktop/main/main.js');
    expect(existsSync(join(root, 'desktop/main/main.ts'))).toBe(true);
    expect(read('desktop/main/desktop-shell.ts')).toContain("'dist', 'desktop', 'preload', 'preload.cjs'");
    expect(existsSync(join(root, 'desktop/preload/preload.cts'))).toBe(true);
    expect(read('desktop/main/desktop-shell.ts')).toContain(
      "'desktop', 'start-screen', 'dist', 'index.html'",
    );
    expect(existsSync(join(root, 'desktop/start-screen/index.html'))).toBe(true);
    expect(existsSync(join(root, 'desktop/start-screen/src/main.tsx'))).toBe(true);
  });

  it('sets the Electron fuses: no RunAsNode, no NODE_OPTIONS or inspect flags, asar only and checked', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('pins Electron 41 and builds installers through npm scripts', () => {
    expect(pkg.devDependencies.electron).toMatch(/^41\.\d+\.\d+$/);
    expect(pkg.scripts.desktop).toContain('desktop/main/launch.ts');
    expect(pkg.scripts['desktop:dist']).toContain('electron-builder --config electron-builder.yml');
  });
});
