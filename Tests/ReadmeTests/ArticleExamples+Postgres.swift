// The Swift block of the SceneStorePostgres.docc landing page, compiled as
// in ArticleExamples+SceneStore.swift; it compiles where the package is
// built with the Postgres trait, as the test command builds it.
#if Postgres
import SceneStore
import SceneStorePostgres

/// SceneStorePostgres.md
func postgresRegistryExample() async throws {
    let scenes = try await SceneRegistry(postgres: "postgres://app:secret@db.example:5432/app", appID: "com.example.editor")
    use(scenes)
}
#endif
