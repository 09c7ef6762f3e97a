// Starts Swagger UI on this service's own OpenAPI document. The key entered under "Authorize" is
// kept in this page's memory only (persistAuthorization off: no local storage) and sent in the
// X-API-KEY header, never in a URL; the page loads nothing from another host (no validator badge).
//
// The document names its server relatively ("../..", so that it holds at any address); here it is
// this page's own origin, so that the server picker shows the address requests go to.
window.addEventListener("load", async () => {
  const options = {
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    displayRequestDuration: true,
    supportedSubmitMethods: ["get", "head"],
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  };
  const url = "/api/v1/openapi.json";
  let spec;
  try {
    const response = await fetch(url);
    if (response.ok) {
      const openapi = await response.json();
      openapi.servers = [{ url: window.location.origin, description: "This service" }];
      spec = openapi;
    }
  } catch {
    // Swagger UI loads the document itself below, and says what went wrong.
  }
  window.ui = SwaggerUIBundle(spec === undefined ? { ...options, url } : { ...options, spec });
});
