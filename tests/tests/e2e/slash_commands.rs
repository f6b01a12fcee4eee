//! What a slash command is, through the real CLI: `/` and a lowercase name, then a
//! space or the end. An unknown one is refused naming the closest commands (it never
//! reaches the model); a message that only starts with a slash, such as a path, goes to
//! the model as written.

use roocode_tests::mock_llm::{Reply, Script};

use crate::harness::World;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_command_names_the_closest_and_a_path_is_a_message() {
    let w = World::new(Script::new().reply(Reply::text("Looking at /usr/lib."))).await;
    let typo = w.run(&["send", "/cots"]).await;
    assert_ne!(typo.code, 0, "{typo:?}");
    assert!(typo.stderr.contains("did you mean /cost?"), "{typo:?}");
    assert_eq!(
        w.mock.request_count(),
        0,
        "a command never reaches the model"
    );

    let path = w.run(&["send", "--continue", "/usr/lib is broken"]).await;
    assert_eq!(path.code, 0, "{path:?}");
    assert!(path.stdout.contains("Looking at /usr/lib."), "{path:?}");
    let sent = w.mock.requests()[0].body["messages"].to_string();
    assert!(sent.contains("/usr/lib is broken"), "{sent}");

    let known = w.run(&["send", "--continue", "/mode plan"]).await;
    assert_eq!(known.code, 0, "{known:?}");
    assert!(known.stdout.contains("Mode set to plan."), "{known:?}");
    assert_eq!(w.mock.request_count(), 1);
}
