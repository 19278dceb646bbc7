//! The consumers in a line each: state and partitions.

use offsetlab_engine::ConsumerView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConsumersProps {
    pub consumers: Rc<Vec<ConsumerView>>,
}

#[component]
pub fn Consumers(props: &ConsumersProps) -> Html {
    html! {
        <section class="consumers" aria-labelledby="consumers-heading">
            <h2 id="consumers-heading">{ "Consumers" }</h2>
            <ul>
                { for props.consumers.iter().map(|c| {
                    let partitions = if c.partitions.is_empty() {
                        "no partitions".to_string()
                    } else {
                        let list: Vec<String> = c.partitions.iter().map(|p| format!("orders-{p}")).collect();
                        list.join(", ")
                    };
                    let id = c.id.to_string();
                    html! {
                        <li key={id.clone()} data-consumer={id.clone()} class={classes!("consumer", c.state.label())}>
                            <span class="consumer-id">{ id }</span>
                            <span class="consumer-state">{ c.state.label() }</span>
                            <span class="consumer-partitions">{ partitions }</span>
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}
