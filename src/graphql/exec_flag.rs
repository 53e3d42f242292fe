//! Tells the HTTP layer whether execution began. GraphQL says a request that fails before
//! execution (syntax, validation, variable coercion, limits) has no `data` at all, and we answer
//! it with 400; once execution began, errors are field errors and the answer is 200 with `data`.
//! async-graphql does not expose the difference, so this extension records it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_graphql::Response;
use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextExecute};

/// Placed in a request's data; set once the operation starts executing.
#[derive(Clone, Default, Debug)]
pub struct ExecutionStarted(pub Arc<AtomicBool>);

impl ExecutionStarted {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

pub(super) struct ExecutionFlag;

impl ExtensionFactory for ExecutionFlag {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(ExecutionFlagExtension)
    }
}

struct ExecutionFlagExtension;

#[async_trait::async_trait]
impl Extension for ExecutionFlagExtension {
    async fn execute(
        &self,
        ctx: &ExtensionContext<'_>,
        operation_name: Option<&str>,
        next: NextExecute<'_>,
    ) -> Response {
        if let Some(flag) = ctx.data_opt::<super::RequestData>().map(|d| &d.started) {
            flag.0.store(true, Ordering::SeqCst);
        }
        next.run(ctx, operation_name).await
    }
}
