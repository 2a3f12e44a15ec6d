//! The Leptos page over the model.
