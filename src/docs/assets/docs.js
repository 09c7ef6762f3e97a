// Starts Swagger UI on this service's own OpenAPI document. The key entered under "Authorize" is
// kept in this page's memory only (persistAuthorization off: no local storage) and sent in the
// X-API-KEY header, never in a URL; the page loads nothing from another host (no validator badge).
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/api/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    displayRequestDuration: true,
    supportedSubmitMethods: ["get", "head"],
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
