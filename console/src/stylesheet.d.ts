// esbuild bundles the stylesheet the entry point imports; TypeScript only needs to know the module exists.
declare module '*.css';
