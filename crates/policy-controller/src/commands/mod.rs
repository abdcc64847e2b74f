//! One module per subcommand: read the input, call the core, print the output.

pub mod render;
pub mod run;
