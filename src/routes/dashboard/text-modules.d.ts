// Files wrangler bundles as text (wrangler.toml [[rules]] type "Text").
declare module "hls.js/dist/hls.light.min.js" {
  const text: string;
  export default text;
}
