// The README's "Several machines" blocks, verbatim (see ReadmeExamples.swift);
// they compile where the package is built with the Postgres trait, as the
// README's test command builds it.
#if Postgres
import SceneStore
import SceneStorePostgres   // the SceneStorePostgres product, with the package's "Postgres" trait

func postgresRegistryExample() throws {
let scenes = try SceneRegistry(postgres: "postgres://app:secret@db.example:5432/app", appID: "com.example.editor")
    use(scenes)
}
#endif
