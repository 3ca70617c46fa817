// The playground's HTML: a static shell the bundled script (web/playground/main.ts) fills in. The
// per-start token is in a meta tag: only a page of this origin can read it (the server refuses other Hosts).
export function pageHtml(token: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="playground-token" content="${token.replace(/[^A-Za-z0-9_-]/g, '')}">
<title>karmada-interpreter playground</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/main.css">
<script type="module" src="/assets/main.js"></script>
</head>
<body>
<noscript>The playground needs JavaScript.</noscript>
<div id="app" aria-busy="true">Loading…</div>
</body>
</html>
`;
}
