const t=performance.now(); await import('./cli/main.ts'); console.log((performance.now()-t).toFixed(0));
